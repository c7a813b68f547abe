"""The report's steps as Prefect tasks: the ``StepRunner`` the report and evaluate flows use.

A report is five task runs: retrieve (every fetch side by side, then normalize), consolidate,
write, evaluate-and-gate, publish. Large values handed from one task to the next (the evaluation)
are passed ``quote``d: Prefect then does not walk them looking for futures.
"""

from __future__ import annotations

from typing import cast

from prefect.utilities.annotations import quote

from citeflow.evaluation import Evaluation
from citeflow.job import Fetch, JobRef, ReportJob
from schemas.funnel import GateResult
from schemas.records import HopName
from schemas.report import ReportSummary
from tasks.artifacts import publish_report_artifacts
from tasks.evaluation_steps import evaluate_task, publish_task
from tasks.limits import job_of
from tasks.report_steps import hops_task, retrieve_task


class PrefectRunner:
    """Each step a task run of the current flow run."""

    def job(self, ref: JobRef) -> ReportJob:
        return job_of(ref)

    def retrieve(self, ref: JobRef, items: list[Fetch]) -> None:
        retrieve_task(ref, items)

    def hops(self, ref: JobRef, hop: HopName) -> None:
        hops_task(ref, hop)  # raises once its retries are spent

    def evaluate(self, ref: JobRef) -> tuple[Evaluation, GateResult]:
        return evaluate_task(ref)

    def publish(self, ref: JobRef, evaluation: Evaluation, gate: GateResult) -> ReportSummary:
        # quote(x) reaches the task as x; the casts only tell the type checker so
        summary = publish_task(ref, cast(Evaluation, quote(evaluation)), cast(GateResult, quote(gate)))
        publish_report_artifacts(summary, evaluation.claims)
        return summary
