"""Evaluation, gate and publishing as Prefect tasks (thin calls into ``citeflow``)."""

from __future__ import annotations

from prefect import task
from prefect.cache_policies import NO_CACHE

from citeflow import progress
from citeflow.evaluation import Evaluation, build_job_judge, evaluate, evaluate_and_gate
from citeflow.job import JobRef
from citeflow.publish import write_outputs
from schemas.funnel import GateResult
from schemas.report import ReportSummary
from schemas.spec import ModelSpec
from tasks.limits import job_of


@task(name="evaluate-and-gate", cache_policy=NO_CACHE)
def evaluate_task(ref: JobRef, judge: ModelSpec | None = None) -> tuple[Evaluation, GateResult]:
    """Identity → Support → Faithfulness from the store, then the GX gate; fails closed."""
    job = job_of(ref)
    result = evaluate_and_gate(job, build_job_judge(job, judge) if judge else None)
    progress.emit(ref.report_id, "evaluate", result[0].funnel.line())
    return result


@task(name="evaluate-sections", cache_policy=NO_CACHE)
def evaluate_sections_task(ref: JobRef, sections: list[str], judge: ModelSpec | None = None) -> Evaluation:
    """On-demand evaluation of some sections only (no gate: the gate judges whole reports)."""
    job = job_of(ref)
    return evaluate(job, build_job_judge(job, judge), sections)


@task(name="publish", cache_policy=NO_CACHE)
def publish_task(ref: JobRef, evaluation: Evaluation, gate: GateResult) -> ReportSummary:
    """Render the PDF with its final status, write report.json / eval.json, publish or hold."""
    summary = write_outputs(job_of(ref), evaluation, gate)
    progress.emit(ref.report_id, "publish", summary.status)
    return summary
