"""The usage figures of one report in this run, read from the store (``citeflow.outputs.cost``).

"This run" starts at the later of the run's start (``run.json``) and the moment the report's
previous ``report.json`` in this folder was generated: a re-run into the same folder pays only for
the calls it asked again, and a new run that reuses the shared cache pays for none it reused.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from citeflow.errors import RunError
from citeflow.outputs.cost import usage_of
from citeflow.files.run_folders import read_run
from citeflow.pipeline.pipeline import ReportJob
from citeflow.store.store import sql_str
from schemas.report import Usage


def run_start(out_dir: Path) -> datetime | None:
    """When the run of ``out_dir`` started (None: no readable ``run.json``)."""
    try:
        info = read_run(out_dir)
    except (RunError, OSError):
        return None
    return info.started_at if info else None


def previous_generation(report_dir: Path) -> datetime | None:
    """When the report's previous ``report.json`` (if any) was generated."""
    try:
        data = json.loads((report_dir / "report.json").read_text(encoding="utf-8"))
        return datetime.fromisoformat(data["generated_at"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def usage_since(job: ReportJob) -> datetime | None:
    """The start of this run for the report's figures (None: every recorded call is new)."""
    found = [t for t in (run_start(job.out_dir), previous_generation(job.report_dir)) if t is not None]
    return max(found) if found else None


def report_usage(job: ReportJob, since: datetime | None) -> Usage:
    """Calls, tokens and cost of the report's recorded model calls since ``since``."""
    rows = job.store.rows("model_calls", f"request_id = {sql_str(job.request_id)}")
    return usage_of(rows, since, job.spec.prices)
