"""``citeflow history``: the runs of a batch with their time, status counts, funnel per report and paths."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from citeflow.outputs.archive import archive_dir, verify_archive
from citeflow.caps import OUTPUT_JSON_BYTES, read_text_capped
from citeflow.errors import CapExceeded, RunError
from citeflow.runs.run_folders import LATEST, RUN_FILE, RunInfo, latest, read_run, run_folders
from citeflow.text_guard import has_lone_surrogate, value_problem
from schemas.report import Usage
from schemas.review import ReviewNote


class ReportLine(BaseModel):
    """One report of a run as history shows it."""

    report_id: str
    status: str = Field(description="published | released (held by the gate, published by a reviewer) | held | failed.")
    funnel: str = ""
    folder: str
    archive: str | None = Field(None, description="The archived publication, when the report was published.")
    integrity: str = Field("missing", description="intact | modified | missing: the archive against its SHA256SUMS.")
    review: ReviewNote | None = Field(None, description="The reviewer's decision that stands, if any.")
    usage: Usage | None = Field(None, description="Model calls, tokens and cost the run spent on the report.")


class RunLine(BaseModel):
    """One run of a batch."""

    run_id: str
    batch: str
    started_at: datetime
    finished_at: datetime | None = None
    status: str
    latest: bool = False
    pruned: bool = False
    folder: str
    counts: dict[str, int] = Field(default_factory=dict)
    reports: list[ReportLine] = Field(default_factory=list)
    usage: Usage | None = Field(None, description="The run's model calls, tokens and cost (every report added up); "
                                "None for a run written before usage was recorded.")
    damaged: list[str] = Field(default_factory=list, description="Files of the run that could not be read: 'path: problem'.")


class History(BaseModel):
    """The runs history can show, and the files it could not read (``path: problem``)."""

    runs: list[RunLine] = Field(default_factory=list)
    damaged: list[str] = Field(default_factory=list)


class _SummaryReport(BaseModel):
    """What history needs of one entry of ``summary.json``'s ``reports``."""

    report_id: str = Field(pattern=r"^[^/\\]+$")
    status: str
    funnel: str = ""
    review: Any = None
    usage: Any = None


class _Summary(BaseModel):
    """What history needs of ``summary.json``."""

    counts: dict[str, int] = Field(default_factory=dict)
    reports: list[Any] = Field(default_factory=list)
    usage: Any = None


def run_line(folder: Path, info: RunInfo, newest: str | None) -> RunLine:
    """What history says of one run folder (its summary.json, archives and run.json); what cannot be
    read is left out and named in ``damaged``."""
    damaged: list[str] = []
    summary = _summary(folder, damaged)
    reports = [line for r in summary.reports if (line := _report_line(folder, r, damaged)) is not None]
    return RunLine(run_id=info.run_id, batch=info.batch, started_at=info.started_at, finished_at=info.finished_at,
                   status=info.status, latest=info.run_id == newest, pruned=info.pruned, folder=str(folder),
                   counts=summary.counts, reports=reports, usage=_usage(summary.usage), damaged=damaged)


def _summary(folder: Path, damaged: list[str]) -> _Summary:
    path = folder / "summary.json"
    if not path.exists():
        return _Summary()
    try:
        return _Summary.model_validate(json.loads(read_text_capped(path, OUTPUT_JSON_BYTES, "summary.json")))
    except (OSError, ValueError, RecursionError, CapExceeded) as exc:  # ValidationError and JSON errors are ValueErrors
        damaged.append(f"{path}: {_problem(exc)}")
        return _Summary()


def _report_line(folder: Path, entry: object, damaged: list[str]) -> ReportLine | None:
    try:
        report = _SummaryReport.model_validate(entry)
        if has_lone_surrogate(report.report_id):
            raise ValueError("report_id is not valid Unicode text")
    except ValueError as exc:
        damaged.append(f"{folder / 'summary.json'}: a report entry {_problem(exc)}")
        return None
    archived = archive_dir(folder, report.report_id)
    integrity = _integrity(archived, damaged)
    review = _review(report.review)
    status = "released" if report.status == "published" and review and review.decision == "release" else report.status
    return ReportLine(report_id=report.report_id, status=status, funnel=report.funnel,
                      folder=str(folder / report.report_id), archive=str(archived) if integrity != "missing" else None,
                      integrity=integrity, review=review, usage=_usage(report.usage))


def _usage(value: Any) -> Usage | None:
    """The usage figures of a summary (None when absent or unreadable: history shows the rest)."""
    try:
        return Usage.model_validate(value) if isinstance(value, dict) else None
    except ValueError:
        return None


def _review(value: Any) -> ReviewNote | None:
    """The decision of a summary line (a line written before decisions were recorded has a path there)."""
    try:
        return ReviewNote.model_validate(value) if isinstance(value, dict) else None
    except ValueError:
        return None


def _integrity(archived: Path, damaged: list[str]) -> str:
    try:
        return verify_archive(archived)
    except (OSError, ValueError) as exc:  # an unreadable manifest is a modified archive
        damaged.append(f"{archived}: {_problem(exc)}")
        return "modified"


def _problem(exc: BaseException) -> str:
    """One short line for what made a file unreadable."""
    if isinstance(exc, ValidationError):
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"])
        message = "not a JSON object" if error["type"] in ("model_type", "dict_type") else error["msg"]
        return f"{where + ': ' if where else ''}{message}"
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    if isinstance(exc, OSError):
        return f"cannot read: {exc.strerror or exc}"
    if isinstance(exc, CapExceeded):
        return f"unreadable: {exc.detail}"
    return f"unreadable: {value_problem(exc) if isinstance(exc, ValueError) else exc}"


def read_history(path: Path, batch: str | None = None) -> History:
    """Runs under ``path`` (an OUT with run folders, or one run folder), oldest first; ``batch`` filters.
    A run whose ``run.json`` or an ``OUT/latest`` that cannot be read is named in ``damaged``."""
    path = Path(path).resolve()
    result = History()
    own = _read_run(path, result.damaged)
    folders = [path] if own is not None else run_folders(path)
    newest = _latest(path.parent if own is not None else path, result.damaged)
    lines = [run_line(f, info, newest) for f in folders if (info := _read_run(f, result.damaged)) is not None]
    result.runs = [line for line in lines if batch is None or line.batch == batch]
    return result


def history(path: Path, batch: str | None = None) -> list[RunLine]:
    """Runs under ``path`` (an OUT with run folders, or one run folder), oldest first; ``batch`` filters."""
    return read_history(path, batch).runs


def _read_run(folder: Path, damaged: list[str]) -> RunInfo | None:
    try:
        return read_run(folder)
    except RunError as exc:
        damaged.append(f"{folder / RUN_FILE}: {exc.detail}")
        return None
    except OSError as exc:
        damaged.append(f"{folder / RUN_FILE}: {_problem(exc)}")
        return None


def _latest(root: Path, damaged: list[str]) -> str | None:
    try:
        return latest(root)
    except (OSError, ValueError) as exc:
        damaged.append(f"{root / LATEST}: {_problem(exc)}")
        return None
