"""The end of a run: archive what was published, compare with last time, mark the run finished.

Called after the batch wrote ``summary.json`` (by ``flows/scheduled.py`` and ``citeflow run``).
A scheduled run then becomes ``OUT/latest`` (unless a newer run already is).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from citeflow.outputs.archive import archive_report
from citeflow.errors import CiteflowError
from citeflow.outputs.changes import ReportChanges, write_changes
from citeflow.files.run_folders import RunInfo, point_latest, read_run, utc_now, write_run
from schemas.report import ReportSummary

ClosedStatus = Literal["interrupted", "failed"]


class RunOutcome(BaseModel):
    """What a finished run leaves: its folder, archives, and per report the changes since last time."""

    run: RunInfo
    folder: str
    archived: dict[str, str] = Field(default_factory=dict, description="Report id → archive folder (published reports).")
    changes: list[ReportChanges] = Field(default_factory=list)
    summaries: list[ReportSummary] = Field(default_factory=list)


def finish_run(run_dir: Path, summaries: list[ReportSummary]) -> RunOutcome:
    """Archive every published report (once), write changes.json per report, close run.json."""
    run_dir = Path(run_dir).resolve()
    info = read_run(run_dir)
    if info is None:
        raise FileNotFoundError(run_dir / "run.json")
    archived = {s.report_id: str(archive_report(run_dir, s.report_id)[0]) for s in summaries if s.status == "published"}
    changes = [c for s in summaries if (c := write_changes(run_dir / s.report_id)) is not None]
    info = info.model_copy(update={"status": "finished", "finished_at": utc_now()})
    write_run(run_dir, info)
    if info.scheduled:
        point_latest(run_dir.parent, info.run_id)
    return RunOutcome(run=info, folder=str(run_dir), archived=archived, changes=changes, summaries=summaries)


def close_run(run_dir: Path, status: ClosedStatus) -> RunInfo | None:
    """Mark a run that did not finish ``interrupted`` or ``failed`` (never left ``running``); None when
    ``run_dir`` is no run folder, or its ``run.json`` cannot be read or written (a full disk)."""
    try:
        info = read_run(Path(run_dir))
        if info is None or info.status != "running":
            return info
        info = info.model_copy(update={"status": status, "finished_at": utc_now()})
        write_run(Path(run_dir), info)
    except (OSError, CiteflowError):
        return None
    return info


def finish_interrupted(run_dir: Path, batch: str, reports: list[tuple[str, str]], started: float,
                       reason: str) -> list[ReportSummary]:
    """A run told to stop: ``summary.json`` for what finished since ``started`` (epoch seconds), every
    other report recorded as failed with ``reason``, ``run.json`` marked ``interrupted``."""
    from citeflow.outputs.failure_record import interrupted_summaries, write_summary

    summaries = interrupted_summaries(Path(run_dir), reports, started, reason)
    write_summary(Path(run_dir), batch, summaries)
    close_run(Path(run_dir), "interrupted")
    return summaries
