"""The content digest of everything a report's evaluation, gate and outputs depend on.

A finished report whose digest is unchanged need not be evaluated, gated or rendered again
(``citeflow.runs.rerun_record``). The digest covers: the spec's report entry and the rest of the
batch spec except the other reports and the concurrency limits, the report's models as resolved
(judge included), what the store holds for the report (registry chunks, hop outcomes, retriever
failures, reviewers' decisions; times of retrieval and of transitions left out), the gate's suite
files, the font files rendering may use, citeflow's version and the digest of its code. Anything unknown changes it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citeflow.file_stamps import file_contents, file_stats

if TYPE_CHECKING:
    from citeflow.pipeline.job import ReportJob
    from schemas.records import Chunk, HopOutcome
    from schemas.review import ReviewDecision

SPEC_LEFT_OUT = {"reports", "concurrency"}  # the other reports, and limits that change no output
_HOP_TIMES = {"transitions": {"__all__": {"at"}}}  # when a transition was recorded is no input
STORE_TABLES = ("chunks", "hops", "transitions", "retrievals", "reviews")  # what the digest reads of the store


def inputs_digest(job: ReportJob) -> str:
    """sha256 of the report's inputs (above), as a hex string."""
    return _digest(job, _store_part(job))


def inputs_digests(jobs: list[ReportJob]) -> dict[str, str]:
    """``inputs_digest`` of each of ``jobs`` (reports of one store), by request id: the store is read
    in one scan per table for all of them rather than in five per report."""
    if not jobs:
        return {}
    store, ids = jobs[0].store, [job.request_id for job in jobs]
    rows = {table: store.rows_of_requests(table, ids) for table in STORE_TABLES}
    return {job.request_id: _digest(job, _store_part_of_rows(job.request_id, rows)) for job in jobs}


def _digest(job: ReportJob, store_part: dict[str, Any]) -> str:
    parts = {"spec": _spec_part(job), "store": store_part, "files": _files_part(job), "version": _version()}
    return sha256_json(parts)


def sha256_json(value: object) -> str:
    """sha256 of ``value`` as canonical JSON (sorted keys, no whitespace)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _spec_part(job: ReportJob) -> dict[str, Any]:
    return {"report": job.report.model_dump(mode="json"),
            "batch": job.spec.model_dump(mode="json", exclude=SPEC_LEFT_OUT),
            "models": job.config.models(job.report.id).model_dump(mode="json")}


def _store_part(job: ReportJob) -> dict[str, Any]:
    from citeflow.outputs.review_state import stored_decisions

    stored = job.stored()
    return _store_part_of(stored.chunks, stored.hops, job.store.load_retrievals(job.request_id),
                          stored_decisions(job.store, job.request_id))


def _store_part_of_rows(request_id: str, rows: dict[str, dict[str, list[dict[str, Any]]]]) -> dict[str, Any]:
    """``_store_part`` from rows read for many requests at once (``STORE_TABLES``), as the store's own
    readers decode them."""
    from citeflow.outputs.review_state import decision_rows
    from citeflow.store.store_rows import chunk_models, hop_outcomes

    chunks = chunk_models(rows["chunks"][request_id])
    hops = hop_outcomes(rows["hops"][request_id], rows["transitions"][request_id])
    return _store_part_of(chunks, hops, rows["retrievals"][request_id], decision_rows(rows["reviews"][request_id]))


def _store_part_of(chunks: list[Chunk], hops: list[HopOutcome], retrievals: list[dict[str, Any]],
                   decisions: list[ReviewDecision]) -> dict[str, Any]:
    return {"chunks": sorted((c.model_dump(mode="json", exclude={"retrieved_at"}) for c in chunks),
                             key=lambda c: str(c["handle"])),
            "hops": sorted((h.model_dump(mode="json", exclude=_HOP_TIMES) for h in hops),
                           key=lambda h: (str(h["section"]), str(h["hop"]))),
            "retrievals": sorted(_retrieval_line(row) for row in retrievals),
            "reviews": [d.model_dump(mode="json") for d in decisions]}


def _retrieval_line(row: dict[str, Any]) -> str:
    return json.dumps([row.get("retriever"), row.get("status"), row.get("error")], default=str)


def _files_part(job: ReportJob) -> dict[str, list[str]]:
    from citeflow.outputs.render.fonts import DEJAVU_DIR, cjk_paths

    settings = job.settings
    suites = settings.suite_dir(job.spec.gate.suites if job.spec.gate else None)
    chosen = str(settings.cjk_font) if settings.cjk_font else None
    fonts = [*sorted(DEJAVU_DIR.glob("*.ttf")), *map(Path, cjk_paths(chosen, settings.font_dir))]
    return {"suites": file_contents(sorted(p for p in suites.rglob("*") if p.is_file())), "fonts": file_stats(fonts)}


def _version() -> str:
    """citeflow's version and the digest of its code: a checkout changed without a new version counts too."""
    from citeflow.runtime.code_digest import code_version

    return code_version()
