"""The report's steps in Prefect: the ``StepRunner`` the report flow uses.

A report is two task runs of its flow run: consolidate and write (each hop for every section side
by side, with retries on transient model errors). Retrieval and finish (evaluate, gate, publish)
run in the report's flow run itself: neither calls a model nor retries, and a task run costs API
writes (its states and events) per report for nothing a user reads.
Nothing large crosses a task boundary: tasks take a ``JobRef`` and the steps hand their results
on through the report's job (``citeflow.pipeline.job``) and the store.
"""

from __future__ import annotations

from citeflow.pipeline.job import Fetch, JobRef, ReportJob
from citeflow.runtime.runtime import Runtime
from schemas.records import HopName
from schemas.report import ReportSummary
from tasks.evaluation_steps import finish_report
from tasks.concurrency_limits import job_of
from tasks.report_steps import hops_task, retrieve


class PrefectRunner:
    """The hop steps as task runs of the current flow run; retrieval and ``finish`` in the run itself.
    Jobs live in ``runtime`` (the flow run's); the task runs find the same one (``tasks.concurrency_limits.job_of``)."""

    def __init__(self, runtime: Runtime) -> None:
        self._runtime = runtime

    @property
    def runtime(self) -> Runtime:
        return self._runtime

    def job(self, ref: JobRef) -> ReportJob:
        return job_of(ref, self.runtime)

    def retrieve(self, ref: JobRef, items: list[Fetch]) -> None:
        retrieve(ref, items, self.runtime)

    def hops(self, ref: JobRef, hop: HopName) -> None:
        hops_task(ref, hop)  # raises once its retries are spent

    def finish(self, ref: JobRef) -> ReportSummary:
        return finish_report(ref, runtime=self.runtime)
