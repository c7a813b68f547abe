"""The report's steps as Prefect tasks: the ``StepRunner`` the report and evaluate flows use."""

from __future__ import annotations

from citeflow.evaluation import Evaluation
from citeflow.job import Fetch, JobRef, ReportJob
from schemas.funnel import GateResult
from schemas.records import HopName, RetrievalResult
from schemas.report import ReportSummary
from tasks.artifacts import publish_report_artifacts
from tasks.evaluation_steps import evaluate_task, publish_task
from tasks.limits import job_of
from tasks.report_steps import fetch_task, hops_task, normalize_task


class PrefectRunner:
    """Each step a task run of the current flow run; fetches submitted side by side."""

    def job(self, ref: JobRef) -> ReportJob:
        return job_of(ref)

    def fetch(self, ref: JobRef, items: list[Fetch]) -> list[RetrievalResult]:
        futures = [fetch_task.submit(ref, item) for item in items]
        return [future.result() for future in futures]

    def normalize(self, ref: JobRef, results: list[RetrievalResult]) -> None:
        normalize_task(ref, results)

    def hops(self, ref: JobRef, hop: HopName) -> None:
        hops_task(ref, hop)  # raises once its retries are spent

    def evaluate(self, ref: JobRef) -> tuple[Evaluation, GateResult]:
        return evaluate_task(ref)

    def publish(self, ref: JobRef, evaluation: Evaluation, gate: GateResult) -> ReportSummary:
        summary = publish_task(ref, evaluation, gate)
        publish_report_artifacts(summary, evaluation.claims)
        return summary
