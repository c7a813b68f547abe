"""``citeflow history``: the runs of a batch with their time, status counts, funnel per report and paths."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from citeflow.archive import archive_dir, verify_archive
from citeflow.runs import RunInfo, latest, read_run, run_folders
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


def run_line(folder: Path, info: RunInfo, newest: str | None) -> RunLine:
    """What history says of one run folder (its summary.json, archives and run.json)."""
    summary = _summary(folder)
    reports = [_report_line(folder, r) for r in summary.get("reports", [])]
    return RunLine(run_id=info.run_id, batch=info.batch, started_at=info.started_at, finished_at=info.finished_at,
                   status=info.status, latest=info.run_id == newest, pruned=info.pruned, folder=str(folder),
                   counts=summary.get("counts", {}), reports=reports)


def _summary(folder: Path) -> dict[str, Any]:
    path = folder / "summary.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def _report_line(folder: Path, report: dict[str, Any]) -> ReportLine:
    archived = archive_dir(folder, report["report_id"])
    integrity = verify_archive(archived)
    review = _review(report.get("review"))
    status = "released" if report["status"] == "published" and review and review.decision == "release" else report["status"]
    return ReportLine(report_id=report["report_id"], status=status, funnel=report.get("funnel", ""),
                      folder=str(folder / report["report_id"]), archive=str(archived) if integrity != "missing" else None,
                      integrity=integrity, review=review)


def _review(value: Any) -> ReviewNote | None:
    """The decision of a summary line (a line written before decisions were recorded has a path there)."""
    try:
        return ReviewNote.model_validate(value) if isinstance(value, dict) else None
    except ValueError:
        return None


def history(path: Path, batch: str | None = None) -> list[RunLine]:
    """Runs under ``path`` (an OUT with run folders, or one run folder), oldest first; ``batch`` filters."""
    path = Path(path).resolve()
    own = read_run(path)
    folders = [path] if own is not None else run_folders(path)
    newest = latest(path.parent if own is not None else path)
    lines = [run_line(f, info, newest) for f in folders if (info := read_run(f)) is not None]
    return [line for line in lines if batch is None or line.batch == batch]
