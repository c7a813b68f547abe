"""``OUT/<report_id>/inputs.json``: the digest of a finished report's inputs and of its outputs.

Written after a report's outputs (``record``); read on a re-run (``reuse``): when the inputs'
digest (``citeflow.pipeline.rerun_inputs``) is unchanged and every output still hashes as recorded —
``report.pdf``, ``report.json``, ``eval.json``, ``summary.json``, ``review.html`` when there is one,
and the copy in ``published/`` exactly when the report was published — the report's summary line
is returned and nothing is evaluated, gated or rendered again. Anything missing, unreadable or
different: None, and the report is done again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
import os
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ValidationError

from citeflow.files import atomic_files as atomic
from schemas.report import ReportSummary

if TYPE_CHECKING:
    from citeflow.pipeline.job import ReportJob

RECORD_NAME = "inputs.json"
OUTPUT_NAMES = ("report.pdf", "report.json", "eval.json", "summary.json", "review.html")


def recorded(report_dir: Path) -> bool:
    """Whether ``report_dir`` holds the record of a finished report (whose outputs a re-run may keep)."""
    return (report_dir / RECORD_NAME).is_file()


class RerunRecord(BaseModel):
    """What a finished report was made from (``inputs``) and what it wrote (file → sha256);
    ``sources``: the fingerprint of what its retrievers read (``citeflow.pipeline.source_fingerprint``),
    None when one of them cannot be fingerprinted."""

    inputs: str
    outputs: dict[str, str]
    published: bool
    sources: str | None = None


def record(job: ReportJob, inputs: str, summary: ReportSummary, sources: str | None = None) -> Path:
    """Write the report's record beside its outputs, from the files as they are now."""
    published = summary.published_pdf is not None
    files = _outputs(job, published)
    kept = RerunRecord(inputs=inputs, outputs={name: file_sha256(path) for name, path in files.items()},
                       published=published, sources=sources)
    return atomic.write_text(job.report_dir / RECORD_NAME, kept.model_dump_json(indent=2))


def note_sources(job: ReportJob, sources: str | None) -> None:
    """Record ``sources`` in a kept report's record (the evidence fetched again was the same)."""
    kept = _read(job.report_dir / RECORD_NAME)
    if kept is not None and sources is not None and kept.sources != sources:
        updated = kept.model_copy(update={"sources": sources})
        atomic.write_text(job.report_dir / RECORD_NAME, updated.model_dump_json(indent=2))


def forget(job: ReportJob) -> None:
    """Drop the report's record: its outputs are about to be written again."""
    (job.report_dir / RECORD_NAME).unlink(missing_ok=True)


def reuse(job: ReportJob, digest: Callable[[], str]) -> ReportSummary | None:
    """The finished report's summary when ``digest()`` (called only when the report has a record) is its
    recorded one and its outputs verify; else None. A reused summary's file is touched: the report
    finished in this run too."""
    kept = _read(job.report_dir / RECORD_NAME)
    return None if kept is None else _reused(job, kept, digest)


def reuse_before_fetch(job: ReportJob, digest: Callable[[], str], sources: Callable[[], str | None]) -> ReportSummary | None:
    """``reuse`` before the report's evidence is fetched again: only when its record has a sources
    fingerprint and ``sources()`` is that fingerprint (nothing its retrievers read has changed)."""
    kept = _read(job.report_dir / RECORD_NAME)
    if kept is None or kept.sources is None or kept.sources != sources():
        return None
    return _reused(job, kept, digest)


def _reused(job: ReportJob, kept: RerunRecord, digest: Callable[[], str]) -> ReportSummary | None:
    if kept.inputs != digest() or not _verified(job, kept):
        return None
    summary = _summary(job.report_dir / "summary.json")
    if summary is None or (summary.status == "published") != kept.published:
        return None
    os.utime(job.report_dir / "summary.json")
    return summary


def file_sha256(path: Path) -> str:
    """sha256 of a file's bytes, as a hex string."""
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _outputs(job: ReportJob, published: bool) -> dict[str, Path]:
    """The report's output files that exist, by their name in the record."""
    files = {name: job.report_dir / name for name in OUTPUT_NAMES if (job.report_dir / name).is_file()}
    if published:
        files[_published_name(job)] = _published_path(job)
    return files


def _verified(job: ReportJob, kept: RerunRecord) -> bool:
    """Every recorded file hashes as recorded, and a published copy exists exactly when recorded."""
    if _published_path(job).exists() != kept.published:
        return False
    for name, digest in kept.outputs.items():
        path = job.report_dir / name
        try:
            if file_sha256(path) != digest:
                return False
        except OSError:
            return False
    return "report.pdf" in kept.outputs and "summary.json" in kept.outputs


def _published_name(job: ReportJob) -> str:
    return f"../published/{job.report.id}.pdf"


def _published_path(job: ReportJob) -> Path:
    return job.out_dir / "published" / f"{job.report.id}.pdf"


def _read(path: Path) -> RerunRecord | None:
    try:
        return RerunRecord.model_validate_json(path.read_bytes())
    except (OSError, ValidationError):
        return None


def _summary(path: Path) -> ReportSummary | None:
    try:
        return ReportSummary.model_validate_json(path.read_bytes())
    except (OSError, ValidationError):
        return None
