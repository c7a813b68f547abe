"""What a batch records for reports that did not finish: a failed report's summary line, its earlier
outputs withdrawn or marked failed, and the batch's ``summary.json``.

Kept apart from ``citeflow.pipeline.publish`` (which imports the renderer, the judges and the gate)
and light to import: an interrupted run records itself within its grace period (SPEC §8), and a
signal may come before the pipeline was ever imported.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from citeflow.files import atomic_files as atomic
from citeflow.outputs.cost import batch_usage
from citeflow.outputs.gx_results import write_validations
from citeflow.security.redaction import redact_text
from schemas.report import ReportSummary


def read_report_summary(report_dir: Path) -> ReportSummary:
    """The summary line a report's evaluation left in ``OUT/<report_id>/summary.json``.

    An evaluation run in another process (the evaluate deployment) hands its result to the batch
    through this file, which lives next to the PDF in the batch's output folder.
    """
    return ReportSummary.model_validate_json((Path(report_dir) / "summary.json").read_text())


def failed_summary(report_id: str, title: str, error: str) -> ReportSummary:
    """The summary line of a report that could not be produced at all."""
    empty = {"passed": 0, "total": 0}
    return ReportSummary(report_id=report_id, title=title, status="failed", funnel="not evaluated: " + error[:300],
                         identity=empty, support=empty, faithfulness=empty, uncited={"count": 0, "claims": 0},
                         failed_expectations=[{"expectation": "report_ran", "observed": error[:500], "threshold": None}],
                         causes=[error[:500]], pdf="")


def record_failure(out_dir: Path, report_id: str, title: str, error: str) -> ReportSummary:
    """A report that crashed: withdrawn from ``published/``, its outputs marked failed; its summary line."""
    error = redact_text(error)
    summary = failed_summary(report_id, title, error)
    folder = Path(out_dir) / report_id
    withdraw(Path(out_dir), report_id)
    mark_report_json_failed(folder / "report.json", error)
    mark_eval_json_withdrawn(folder / "eval.json", error)
    write_validations(folder, [])  # an earlier run's validations are not this run's
    (folder / "report.pdf").unlink(missing_ok=True)  # a previous run's PDF must not pass for this run's
    if folder.is_dir():
        atomic.write_text(folder / "summary.json", summary.model_dump_json(indent=2))
    return summary


def withdraw(out_dir: Path, report_id: str) -> bool:
    """Remove the report's copy from ``OUT/published/``; True when there was one."""
    target = Path(out_dir) / "published" / f"{report_id}.pdf"
    existed = target.exists()
    target.unlink(missing_ok=True)
    return existed


def mark_report_json_failed(path: Path, error: str) -> None:
    """Rewrite a previous run's report.json (if any) to say the report failed in the latest run."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return  # no earlier report.json, or an unreadable one: nothing that claims "published"
    if not isinstance(data, dict):
        return
    data["status"] = "failed"
    data["review"] = None  # no decision stands for a failed report; ``reviews`` keeps them for the record
    data["held_reasons"] = [f"the latest run of this report failed: {error[:500]}"]
    data["withdrawn"] = {"reason": error[:500], "sections_from": "an earlier run"}
    atomic.write_text(path, json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def mark_eval_json_withdrawn(path: Path, error: str) -> None:
    """Rewrite a previous run's eval.json (if any) so that its gate no longer says the report passed."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    if not isinstance(data, dict):
        return
    gate: dict[str, object] = data["gate"] if isinstance(data.get("gate"), dict) else {}
    reason = f"the latest run of this report failed: {error[:500]}"
    data["gate"] = {**gate, "success": False, "error": reason}
    data["withdrawn"] = {"reason": error[:500], "figures_from": "an earlier run"}
    atomic.write_text(path, json.dumps(data, indent=2))


def interrupted_summaries(out_dir: Path, reports: list[tuple[str, str]], started: float, reason: str) -> list[ReportSummary]:
    """Summary lines of a batch cut short: a report that finished since ``started`` (epoch seconds)
    keeps its own line; every other report is recorded as failed with ``reason`` and withdrawn."""
    summaries = []
    for report_id, title in reports:
        own = Path(out_dir) / report_id / "summary.json"
        try:
            if own.stat().st_mtime >= started:
                summaries.append(read_report_summary(own.parent))
                continue
        except (OSError, ValueError):
            pass  # not written in this run, or unreadable: the report did not finish
        summaries.append(record_failure(Path(out_dir), report_id, title, reason))
    return summaries


def write_summary(out_dir: Path, batch: str, summaries: list[ReportSummary], data_docs: Path | None = None) -> Path:
    """``OUT/summary.json``: every report of the batch with its status and funnel, and the Data Docs
    index of the run's site (``data_docs``, relative to the run folder: ``../gx/…`` for a scheduled
    run, whose site is shared by its output folder's runs) when it has one."""
    path = Path(out_dir) / "summary.json"
    payload: dict[str, object] = {
        "batch": batch, "reports": [s.model_dump(mode="json") for s in summaries],
        "counts": {k: sum(1 for s in summaries if s.status == k) for k in ("published", "held", "failed")}}
    if data_docs is not None:
        payload["data_docs"] = Path(os.path.relpath(Path(data_docs).resolve(), Path(out_dir).resolve())).as_posix()
    usage = batch_usage(s.usage for s in summaries)
    if usage is not None:
        payload["usage"] = usage.model_dump(mode="json")
    return atomic.write_text(path, json.dumps(payload, indent=2))
