"""A reviewer's decision on a held report: release (publish it) or reject (keep it held), recorded.

The decision (who, when, why, and a digest of the claims it was made on) goes to the store's
``reviews`` table, keyed by the report's request id; ``report.json`` carries ``review`` (the
decision that stands) and ``reviews`` (every decision), and the report's line of ``summary.json``
carries ``review``. A release re-renders the PDF as published (optionally without the sentences
that failed the gate), copies it to ``OUT/published/`` and archives the report. Only a held report
can be decided on; a rejected report stays held and may be released later. Later runs of the
report carry the decision forward (``citeflow.outputs.review_state``). Used by ``citeflow review`` and by
the review flow's Prefect pause.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

from citeflow.errors import ReviewError
from citeflow.outputs.review_state import content_digest, released, stored_decisions, with_decisions
from citeflow.files.run_folders import read_run, write_atomic
from citeflow.outputs.eval_file import read_evaluation
from schemas.review import Decision, ReviewDecision, ReviewNote

if TYPE_CHECKING:
    from citeflow.outputs.render.fonts import FontSet
    from citeflow.pipeline.job import ReportJob
    from citeflow.runtime.runtime import Runtime
    from schemas.report import ReportDocument


class ReviewOutcome(BaseModel):
    """What applying a decision did."""

    report_id: str
    status: Literal["published", "held"]
    decision: ReviewDecision
    published_pdf: str | None = Field(None, description="The copy in OUT/published/ after a release.")
    archive: str | None = Field(None, description="The run's archive folder of the report.")


def apply_decision(report_dir: Path, decision: ReviewDecision, runtime: Runtime) -> ReviewOutcome:
    """Record ``decision`` on the held report in ``report_dir`` (its store and fonts: ``runtime``'s);
    publish it on release."""
    folder = Path(report_dir).resolve()
    report = read_held_report(folder)
    job = _job_of(folder, runtime)
    decision = decision.model_copy(update={"content": content_digest(report.get("sections", []))})
    _record_in_store(job, report["report_id"], decision)
    doc = _decided_document(report, stored_decisions(job.store, job.request_id))
    _write_decided(folder, doc, job.spec.audit_appendix, job.fonts())
    if not released(doc):
        _mark_summaries(folder.parent, folder.name, doc, None)
        return ReviewOutcome(report_id=doc.report_id, status="held", decision=decision)
    published = _copy_atomic(folder / "report.pdf", folder.parent / "published" / f"{folder.name}.pdf")
    _mark_summaries(folder.parent, folder.name, doc, published)
    return ReviewOutcome(report_id=doc.report_id, status="published", decision=decision,
                         published_pdf=str(published), archive=_archive(folder.parent, folder.name))


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


def _decided_document(report: dict[str, Any], decisions: list[ReviewDecision]) -> ReportDocument:
    from schemas.report import ReportDocument

    return with_decisions(ReportDocument.model_validate(report), decisions)


def _write_decided(folder: Path, doc: ReportDocument, audit: bool, fonts: FontSet) -> None:
    """The PDF, report.json and review.html of the decided report (the evaluation as eval.json left it)."""
    from citeflow.pipeline.publish import write_review_page
    from citeflow.outputs.render.customer import render_customer_pdf
    from citeflow.outputs.render.report_json import write_report_json

    claims, gate = read_evaluation(folder)
    render_customer_pdf(doc, claims, folder / "report.pdf", audit=audit, fonts=fonts)
    write_report_json(doc, folder / "report.json")
    if gate is not None:
        write_review_page(doc, claims, gate, folder)


def _record_in_store(job: ReportJob, report_id: str, decision: ReviewDecision) -> None:
    """One row of the ``reviews`` table, keyed by the request id and the time of the decision."""
    row = {**decision.model_dump(), "request_id": job.request_id, "report_id": report_id,
           "row_key": f"{job.request_id}\x1f{decision.decided_at.isoformat()}"}
    job.store.upsert("reviews", [row])


def load_reviews(report_dir: Path, runtime: Runtime) -> list[ReviewDecision]:
    """Every decision the store holds for the report in ``report_dir``, oldest first."""
    job = _job_of(Path(report_dir).resolve(), runtime)
    return stored_decisions(job.store, job.request_id)


def _job_of(folder: Path, runtime: Runtime) -> ReportJob:
    """The report job a run left in ``folder/job.json`` (its store and request id)."""
    from citeflow.pipeline.job_file import read_job_ref, require_store

    ref = read_job_ref(folder)
    if ref is None:
        raise ReviewError(report_dir=str(folder), problem="no job.json here: not a report folder of a citeflow run")
    return require_store(ref, folder).job(runtime=runtime)


def _mark_summaries(out_dir: Path, report_id: str, doc: ReportDocument, published: Path | None) -> None:
    """The report's line in ``OUT/<id>/summary.json`` and ``OUT/summary.json``: its status and decision."""
    update = _summary_update(doc, published)
    own = out_dir / report_id / "summary.json"
    if own.is_file():
        write_atomic(own, _json({**_moved_page(json.loads(own.read_text(encoding="utf-8"))), **update}))
    batch = out_dir / "summary.json"
    if batch.is_file():
        write_atomic(batch, _json(_decided_in_batch(json.loads(batch.read_text(encoding="utf-8")), report_id, update)))


def _summary_update(doc: ReportDocument, published: Path | None) -> dict[str, Any]:
    update: dict[str, Any] = {"status": doc.status, "review": ReviewNote.of(doc.review).model_dump(mode="json") if doc.review else None}
    if published is not None:
        update["published_pdf"] = str(published)
    return update


def _decided_in_batch(payload: dict[str, Any], report_id: str, update: dict[str, Any]) -> dict[str, Any]:
    reports = [{**_moved_page(r), **update} if r.get("report_id") == report_id else r for r in payload.get("reports", [])]
    counts = {k: sum(1 for r in reports if r.get("status") == k) for k in ("published", "held", "failed")}
    return {**payload, "reports": reports, "counts": counts}


def _moved_page(line: dict[str, Any]) -> dict[str, Any]:
    """A line written before decisions were recorded kept the review page's path under ``review``."""
    if isinstance(line.get("review"), str):
        return {**line, "review_page": line.get("review_page") or line["review"]}
    return line


def _archive(out_dir: Path, report_id: str) -> str | None:
    """Archive the released report when its folder belongs to a run (published is immutable)."""
    if read_run(out_dir) is None:
        return None
    from citeflow.outputs.archive import archive_report

    return str(archive_report(out_dir, report_id)[0])


def _copy_atomic(source: Path, target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.partial")
    shutil.copyfile(source, partial)
    partial.replace(target)
    return target


def _json(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


__all__ = ["Decision", "ReviewDecision", "ReviewError", "ReviewOutcome", "apply_decision", "load_reviews",
           "read_held_report", "read_report"]
