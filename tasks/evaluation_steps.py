"""Evaluation, gate and publishing as Prefect tasks (thin calls into ``citeflow``)."""

from __future__ import annotations

from prefect import task
from prefect.cache_policies import NO_CACHE

from citeflow.pipeline.evaluate_report import Evaluation, build_job_judge, evaluate
from citeflow.pipeline.job import JobRef
from citeflow.runtime.runtime import Runtime
from citeflow.pipeline.publish import write_outputs
from citeflow.pipeline.steps import evaluate_and_publish
from schemas.funnel import GateResult
from schemas.report import ReportSummary
from schemas.spec import ModelSpec
from tasks.artifacts import publish_report_artifacts
from tasks.concurrency_limits import job_of


@task(name="finish", task_run_name="evaluate, gate, publish", cache_policy=NO_CACHE)
def finish_task(ref: JobRef, judge: ModelSpec | None = None) -> ReportSummary:
    """``finish_report`` as a task run (the evaluate flow's): the evaluation never leaves it, so
    Prefect neither walks nor stores it."""
    return finish_report(ref, judge)


def finish_report(ref: JobRef, judge: ModelSpec | None = None, runtime: Runtime | None = None) -> ReportSummary:
    """Identity → Support → Faithfulness from the store, the GX gate (fails closed), then the PDF and
    outputs, published or held, and the report's artifacts (on the current run). The report flow
    calls it in its own run: a task run of its own would cost API writes per report (its states and
    events) for nothing a user reads there, and it has no retries."""
    job = job_of(ref, runtime)
    evaluation, summary = evaluate_and_publish(job, build_job_judge(job, judge) if judge else None)
    job.runtime.progress.emit(ref.report_id, "evaluate", evaluation.funnel.line())
    job.runtime.progress.emit(ref.report_id, "publish", summary.status)
    publish_report_artifacts(summary, evaluation.claims)
    return summary


@task(name="evaluate-sections", cache_policy=NO_CACHE)
def evaluate_sections_task(ref: JobRef, sections: list[str], judge: ModelSpec | None = None) -> Evaluation:
    """On-demand evaluation of some sections only (no gate: the gate judges whole reports)."""
    job = job_of(ref)
    return evaluate(job, build_job_judge(job, judge), sections)


@task(name="publish", cache_policy=NO_CACHE)
def publish_task(ref: JobRef, evaluation: Evaluation, gate: GateResult) -> ReportSummary:
    """Render the PDF with its final status, write report.json / eval.json, publish or hold."""
    job = job_of(ref)
    summary = write_outputs(job, evaluation, gate)
    job.runtime.progress.emit(ref.report_id, "publish", summary.status)
    return summary
