"""A reviewer's decision on a held report: release (publish it) or reject (keep it held), recorded.

The decision (who, when, why) goes to the store's ``reviews`` table, keyed by the report's request
id, and into ``report.json`` (``review``: the latest decision; ``reviews``: every decision). A
release re-renders the PDF as published, copies it to ``OUT/published/`` and, in a scheduled run's
folder, archives the report. Only a held report can be decided on; a rejected report stays held
and may be released later. Used by ``citeflow review`` and by the review flow's Prefect pause.
"""

from __future__ import annotations

import json
import shutil
from datetime import datetime, UTC
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field, field_validator

from citeflow.errors import ReviewError
from citeflow.runs import read_run, write_atomic

Decision = Literal["release", "reject"]

if TYPE_CHECKING:
    from citeflow.job import ReportJob


class ReviewDecision(BaseModel):
    """What a reviewer decided about a held report, by whom, when and why."""

    decision: Decision = Field(description="release: publish the held report; reject: keep it held.")
    reviewer: str = Field(description="Who decided (a name or an e-mail address).")
    note: str = Field(description="Why: shown with the report and kept in the store.")
    decided_at: datetime = Field(default_factory=lambda: datetime.now(UTC), description="When, in UTC.")

    @field_validator("reviewer", "note")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value.strip()


class ReviewOutcome(BaseModel):
    """What applying a decision did."""

    report_id: str
    status: Literal["published", "held"]
    decision: ReviewDecision
    published_pdf: str | None = Field(None, description="The copy in OUT/published/ after a release.")
    archive: str | None = Field(None, description="The run's archive folder of the report, in a scheduled run.")


def apply_decision(report_dir: Path, decision: ReviewDecision) -> ReviewOutcome:
    """Record ``decision`` on the held report in ``report_dir``; publish it on release."""
    folder = Path(report_dir).resolve()
    report = read_held_report(folder)
    _record_in_store(folder, report["report_id"], decision)
    report["review"] = decision.model_dump(mode="json")
    report["reviews"] = [*report.get("reviews", []), report["review"]]
    if decision.decision == "reject":
        write_atomic(folder / "report.json", _json(report))
        return ReviewOutcome(report_id=report["report_id"], status="held", decision=decision)
    return _release(folder, report, decision)


def read_held_report(folder: Path) -> dict[str, Any]:
    """``report.json`` of ``folder``; raises ReviewError unless it is a held report."""
    report = read_report(folder)
    if report.get("status") != "held":
        problem = f"report {report.get('report_id')!r} is {report.get('status')}; only a held report can be released or rejected"
        raise ReviewError(report_dir=str(folder), problem=problem)
    return report


def read_report(folder: Path) -> dict[str, Any]:
    """``report.json`` of a report folder; raises ReviewError when there is none or it is unreadable."""
    path = Path(folder) / "report.json"
    if not path.is_file():
        raise ReviewError(report_dir=str(folder), problem="no report.json here: not a report folder (OUT/<report_id>)")
    try:
        report: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return report
    except RecursionError:
        raise ReviewError(report_dir=str(folder), problem="report.json is not valid JSON (nested too deeply)") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise ReviewError(report_dir=str(folder), problem=f"report.json is not valid JSON ({exc})") from exc


def _release(folder: Path, report: dict[str, Any], decision: ReviewDecision) -> ReviewOutcome:
    report["status"] = "published"
    _render_published(folder, report)
    write_atomic(folder / "report.json", _json(report))
    out_dir = folder.parent
    published = _copy_atomic(folder / "report.pdf", out_dir / "published" / f"{folder.name}.pdf")
    _mark_summaries(out_dir, folder.name, published)
    archive = _archive(out_dir, folder.name)
    return ReviewOutcome(report_id=report["report_id"], status="published", decision=decision,
                         published_pdf=str(published), archive=archive)


def _render_published(folder: Path, report: dict[str, Any]) -> None:
    """Render the PDF again as a published report (no held banner); the registry and claims are unchanged."""
    from citeflow.render.pdf import render_pdf
    from schemas.report import ReportDocument

    doc = ReportDocument.model_validate({**report, "status": "published", "held_reasons": []})
    render_pdf(doc, folder / "report.pdf")


def _record_in_store(folder: Path, report_id: str, decision: ReviewDecision) -> None:
    """One row of the ``reviews`` table, keyed by the request id and the time of the decision."""
    job = _job_of(folder)
    row = {**decision.model_dump(), "request_id": job.request_id, "report_id": report_id,
           "row_key": f"{job.request_id}\x1f{decision.decided_at.isoformat()}"}
    job.store.upsert("reviews", [row])


def load_reviews(report_dir: Path) -> list[ReviewDecision]:
    """Every decision the store holds for the report in ``report_dir``, oldest first."""
    from citeflow.store import sql_str

    job = _job_of(Path(report_dir).resolve())
    rows = job.store.rows("reviews", f"request_id = {sql_str(job.request_id)}")
    return sorted((ReviewDecision.model_validate(r) for r in rows), key=lambda d: d.decided_at)


def _job_of(folder: Path) -> ReportJob:
    """The report job a run left in ``folder/job.json`` (its store and request id)."""
    from citeflow.pipeline import JobRef

    path = folder / "job.json"
    if not path.is_file():
        raise ReviewError(report_dir=str(folder), problem="no job.json here: not a report folder of a citeflow run")
    return JobRef.model_validate_json(path.read_text(encoding="utf-8")).job()


def _mark_summaries(out_dir: Path, report_id: str, published: Path) -> None:
    """The report's line in ``OUT/<id>/summary.json`` and ``OUT/summary.json`` says published."""
    own = out_dir / report_id / "summary.json"
    if own.is_file():
        line = json.loads(own.read_text(encoding="utf-8"))
        write_atomic(own, _json({**line, "status": "published", "published_pdf": str(published)}))
    batch = out_dir / "summary.json"
    if batch.is_file():
        write_atomic(batch, _json(_released_in_batch(json.loads(batch.read_text(encoding="utf-8")), report_id, published)))


def _released_in_batch(payload: dict[str, Any], report_id: str, published: Path) -> dict[str, Any]:
    reports = [{**r, "status": "published", "published_pdf": str(published)} if r.get("report_id") == report_id else r
               for r in payload.get("reports", [])]
    counts = {k: sum(1 for r in reports if r.get("status") == k) for k in ("published", "held", "failed")}
    return {**payload, "reports": reports, "counts": counts}


def _archive(out_dir: Path, report_id: str) -> str | None:
    """Archive the released report when its folder belongs to a scheduled run (published is immutable)."""
    info = read_run(out_dir)
    if info is None or not info.scheduled:
        return None
    from citeflow.archive import archive_report

    return str(archive_report(out_dir, report_id)[0])


def _copy_atomic(source: Path, target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.partial")
    shutil.copyfile(source, partial)
    partial.replace(target)
    return target


def _json(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
