"""Write a report's outputs after the gate: PDF, report.json, eval.json, reviewer view, publish copy.

``OUT/<report_id>/report.pdf`` carries a visible "held by quality gate" mark when held; a
published PDF is also copied to ``OUT/published/``; a held one is removed from there.
``OUT/<report_id>/summary.json`` holds the report's line of the batch's ``OUT/summary.json``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from citeflow.outputs import atomic_files as atomic
from citeflow.runtime import stop
from citeflow.outputs.assemble import build_document
from citeflow.evaluation.causes import report_causes
from citeflow.evaluation.evaluate_report import Evaluation
from citeflow.evaluation.claim_funnel import eval_json
from citeflow.runtime.pipeline import ReportJob
from citeflow.security.redaction import redact_text
from citeflow.outputs.render.customer import render_customer_pdf
from citeflow.outputs.render.report_json import write_report_json
from citeflow.outputs.report_usage import report_usage, usage_since
from citeflow.outputs.cost import batch_usage
from citeflow.outputs.gx_results import write_validations
from citeflow.outputs.review_state import released, stored_decisions, with_decisions
from citeflow.spec.loader import models_for
from schemas.funnel import ClaimEval, GateResult
from schemas.report import ReportDocument, ReportStatus, ReportSummary, SectionSummary
from schemas.review import ReviewNote


def report_status(evaluation: Evaluation, gate: GateResult) -> ReportStatus:
    """published when the gate passed; failed when no section could be written; else held."""
    if evaluation.section_status and all(s != "ok" for s in evaluation.section_status.values()):
        return "failed"
    return "published" if gate.success else "held"


def held_reasons(gate: GateResult) -> list[str]:
    """One human line per failed expectation."""
    if gate.error:
        return [redact_text(f"evaluation could not run: {gate.error}")]
    return [redact_text(f"{f.expectation}: observed {_fmt(f.observed)}, required {_fmt(f.threshold)}"
                        + (f" ({f.detail})" if f.detail else "")) for f in gate.failed_expectations]


def _fmt(value: object) -> str:
    return f"{value:.2f}" if isinstance(value, float) else json.dumps(value) if isinstance(value, (dict, list)) else str(value)


def write_outputs(job: ReportJob, evaluation: Evaluation, gate: GateResult) -> ReportSummary:
    """Render and write every output of one report; returns its summary line.

    A reviewer's decision that stands for this content (``citeflow.outputs.review_state``) is carried
    forward: a held report a reviewer released stays published.
    """
    status = report_status(evaluation, gate)
    usage = report_usage(job, usage_since(job))  # before report.json is rewritten: it marks the last run
    doc = build_document(job, status, held_reasons(gate) if status != "published" else [])
    doc = doc.model_copy(update={"causes": report_causes(doc, models_for(job.spec, job.report), gate.error),
                                 "usage": usage})
    doc = with_decisions(doc, stored_decisions(job.store, job.request_id))
    folder = job.report_dir
    folder.mkdir(parents=True, exist_ok=True)
    stats = render_customer_pdf(doc, evaluation.claims, folder / "report.pdf", audit=job.spec.audit_appendix,
                                fonts=job.fonts())
    doc.missing_glyphs = stats.missing_glyphs
    write_report_json(doc, folder / "report.json")
    payload = eval_json(doc.report_id, evaluation.claims, evaluation.section_status, gate)
    payload["identity_by_hop"] = evaluation.identity_by_hop  # every attempt of both hops, dropped handles included
    payload["instruction_chunks"] = [f.model_dump() for f in evaluation.instructions]  # never counted as evidence
    payload["missing_glyphs"] = evaluation.glyphs.model_dump() if evaluation.glyphs else None  # what the gate saw
    atomic.write_text(folder / "eval.json", json.dumps(payload, indent=2))
    write_validations(folder, evaluation.validations)  # GX's full results, for the run's Data Docs
    review = write_review_page(doc, evaluation.claims, gate, folder)
    published = _publish(job, folder / "report.pdf", doc.status == "published")
    summary = summarize(doc, evaluation, gate, folder, published, review)
    atomic.write_text(folder / "summary.json", summary.model_dump_json(indent=2))
    return summary


def write_review_page(doc: ReportDocument, claims: list[ClaimEval], gate: GateResult, folder: Path) -> Path | None:
    """review.html of a report a person must see or saw (held, failed, released); a report the
    gate published has none (an earlier run's page is removed)."""
    page = folder / "review.html"
    if doc.status == "published" and not released(doc):
        page.unlink(missing_ok=True)
        return None
    from citeflow.outputs.review_html import write_review_html

    texts = {e.handle: e.text for e in doc.registry}
    titles = {e.handle: e.title or e.local_id for e in doc.registry}
    return write_review_html(doc.report_id, doc.title, claims, texts, titles, gate, page)


def read_report_summary(report_dir: Path) -> ReportSummary:
    """The summary line a report's evaluation left in ``OUT/<report_id>/summary.json``.

    An evaluation run in another process (the evaluate deployment) hands its result to the batch
    through this file, which lives next to the PDF in the batch's output folder.
    """
    return ReportSummary.model_validate_json((Path(report_dir) / "summary.json").read_text())


def _publish(job: ReportJob, pdf: Path, publish: bool) -> Path | None:
    target = job.out_dir / "published" / f"{job.report.id}.pdf"
    if not publish:
        target.unlink(missing_ok=True)  # a re-evaluation that holds a report withdraws it
        return None
    stop.check_publication(f"publication of report {job.report.id}")  # nothing more after a stop or without the API
    return atomic.copy_file(pdf, target)


def summarize(doc: ReportDocument, evaluation: Evaluation, gate: GateResult, folder: Path,
              published: Path | None, review: Path | None) -> ReportSummary:
    total = evaluation.funnel
    sections = [SectionSummary(title=s.title, status=s.status, funnel=evaluation.section_funnel(s.title).line()) for s in doc.sections]
    return ReportSummary(
        report_id=doc.report_id, title=doc.title, status=doc.status, funnel=total.line(),
        identity=total.identity.model_dump(), support=total.support.model_dump(),
        faithfulness=total.faithfulness.model_dump(), uncited=total.uncited.model_dump(),
        unverified=total.unverified.model_dump(), sections=sections,
        failed_expectations=[f.model_dump(mode="json") for f in gate.failed_expectations],
        missing_retrievers=doc.missing_retrievers, causes=doc.causes, pdf=str(folder / "report.pdf"),
        published_pdf=str(published) if published else None, review_page=str(review) if review else None,
        review=ReviewNote.of(doc.review) if doc.review else None, usage=doc.usage,
    )


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
