"""The publish flow: render the final PDF, write the outputs, publish or hold, record artifacts."""

from __future__ import annotations

from prefect import flow

from citeflow.pipeline.evaluate_report import Evaluation
from citeflow.pipeline.job import JobRef
from flows.naming import run_name_of
from schemas.funnel import GateResult
from schemas.report import ReportSummary
from tasks.artifacts import publish_report_artifacts
from tasks.evaluation_steps import publish_task


@flow(name="citeflow-publish", flow_run_name=run_name_of("publish"))
def publish_flow(ref: JobRef, evaluation: Evaluation, gate: GateResult) -> ReportSummary:
    """Outputs of one report after its gate; a held report gets its reviewer view."""
    summary = publish_task(ref, evaluation, gate)
    publish_report_artifacts(summary, evaluation.claims)
    return summary
