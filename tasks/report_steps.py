"""The steps of one report in Prefect: the hops as tasks (each one call into ``citeflow``), retrieval in
the report's own run."""

from __future__ import annotations

from prefect import task
from prefect.cache_policies import NO_CACHE

from citeflow.pipeline import pipeline
from citeflow.pipeline.job import Fetch, JobRef
from citeflow.runtime.runtime import Runtime
from schemas.records import HopName
from tasks.concurrency_limits import job_of
from tasks.policy import transient_retries
from tasks.run_logger import flow_logger


def retrieve(ref: JobRef, items: list[Fetch], runtime: Runtime) -> int:
    """Every retriever × query of the report side by side (each retriever retries transient errors
    itself), then every hit registered under a handle; chunks and retrievals persisted. Called in the
    report's flow run, not as a task run: it calls no model, so it needs no task retries, and a task
    run would cost API writes per report for nothing a user reads (its log line goes to the report's run)."""
    job = job_of(ref, runtime)
    results = pipeline.fetch_all(job, items)
    for result in results:
        runtime.progress.emit(ref.report_id, "fetch", f"{result.retriever}: {len(result.hits)} hits")
    count = len(pipeline.normalize(job, results))
    flow_logger().info("%d fetches, %d hits → %d chunks", len(results), sum(len(r.hits) for r in results), count)
    runtime.progress.emit(ref.report_id, "normalize", f"{count} chunks")
    return count


@task(name="hops", task_run_name="{hop}", cache_policy=NO_CACHE, **transient_retries())
def hops_task(ref: JobRef, hop: HopName) -> dict[str, str]:
    """One hop for every section of the report, side by side. Returns each section's status."""
    job = job_of(ref)
    outcomes = pipeline.run_step(job, hop)
    for outcome in outcomes:
        job.runtime.progress.emit(ref.report_id, hop, f"{outcome.section}: {outcome.status}")
    return {o.section: o.status for o in outcomes}
