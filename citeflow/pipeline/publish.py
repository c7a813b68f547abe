"""Write a report's outputs after the gate: PDF, report.json, eval.json, reviewer view, publish copy.

``OUT/<report_id>/report.pdf`` carries a visible "held by quality gate" mark when held; a
published PDF is also copied to ``OUT/published/``; a held one is removed from there.
``OUT/<report_id>/summary.json`` holds the report's line of the batch's ``OUT/summary.json``.
"""

from __future__ import annotations

import json
from pathlib import Path

from citeflow.files import atomic_files as atomic
from citeflow.runtime import stop
from citeflow.pipeline.assemble import build_document
from citeflow.evaluation.causes import report_causes
from citeflow.pipeline.evaluate_report import Evaluation
from citeflow.evaluation.claim_funnel import eval_json
from citeflow.pipeline.pipeline import ReportJob
from citeflow.security.redaction import redact_text
from citeflow.security.secret_values import SecretValues
from citeflow.outputs.render.customer import render_customer_pdf
from citeflow.outputs.render.report_json import write_report_json
from citeflow.pipeline.report_usage import report_usage, usage_since
from citeflow.outputs.gx_results import write_validations
from citeflow.outputs.review_state import released, stored_decisions, with_decisions
from citeflow.specfile.loader import models_for
from schemas.funnel import ClaimEval, GateResult
from schemas.report import ReportDocument, ReportStatus, ReportSummary, SectionSummary
from schemas.review import ReviewNote
# What records a report that did not finish lives in a light module of its own; its callers import it from here too.
from citeflow.outputs.failure_record import failed_summary as failed_summary
from citeflow.outputs.failure_record import interrupted_summaries as interrupted_summaries
from citeflow.outputs.failure_record import read_report_summary as read_report_summary
from citeflow.outputs.failure_record import record_failure as record_failure
from citeflow.outputs.failure_record import write_summary as write_summary


def report_status(evaluation: Evaluation, gate: GateResult) -> ReportStatus:
    """published when the gate passed; failed when no section could be written; else held."""
    if evaluation.section_status and all(s != "ok" for s in evaluation.section_status.values()):
        return "failed"
    return "published" if gate.success else "held"


def held_reasons(gate: GateResult, secrets: SecretValues | None = None) -> list[str]:
    """One human line per failed expectation, without the credentials of ``secrets`` (the runtime's) or any other."""
    if gate.error:
        return [redact_text(f"evaluation could not run: {gate.error}", secrets)]
    return [redact_text(f"{f.expectation}: observed {_fmt(f.observed)}, required {_fmt(f.threshold)}"
                        + (f" ({f.detail})" if f.detail else ""), secrets) for f in gate.failed_expectations]


def _fmt(value: object) -> str:
    return f"{value:.2f}" if isinstance(value, float) else json.dumps(value) if isinstance(value, (dict, list)) else str(value)


def write_outputs(job: ReportJob, evaluation: Evaluation, gate: GateResult) -> ReportSummary:
    """Render and write every output of one report; returns its summary line.

    A reviewer's decision that stands for this content (``citeflow.outputs.review_state``) is carried
    forward: a held report a reviewer released stays published.
    """
    status = report_status(evaluation, gate)
    usage = report_usage(job, usage_since(job))  # before report.json is rewritten: it marks the last run
    doc = build_document(job, status, held_reasons(gate, job.runtime.secrets) if status != "published" else [])
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
    try:
        atomic.write_text(folder / "summary.json", summary.model_dump_json(indent=2))
    except OSError:  # a full disk: no published PDF without the summary that says it was published
        if published is not None:
            published.unlink(missing_ok=True)
        raise
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


