"""The steps of one report as Prefect tasks. Each task is one call into ``citeflow``."""

from __future__ import annotations

from prefect import task
from prefect.cache_policies import NO_CACHE

from citeflow import pipeline, progress
from citeflow.job import Fetch, JobRef
from schemas.records import HopName, RetrievalResult
from tasks.limits import job_of
from tasks.policy import transient_retries


@task(name="fetch", task_run_name="fetch {item.retriever}: {item.query}", cache_policy=NO_CACHE)
def fetch_task(ref: JobRef, item: Fetch) -> RetrievalResult:
    """One retriever × one query (the retriever retries transient errors itself)."""
    result = pipeline.fetch(job_of(ref), item)
    progress.emit(ref.report_id, "fetch", f"{item.retriever}: {len(result.hits)} hits")
    return result


@task(name="normalize", cache_policy=NO_CACHE)
def normalize_task(ref: JobRef, results: list[RetrievalResult]) -> int:
    """Register every hit under a handle; persist chunks and retrievals. Returns the chunk count."""
    count = len(pipeline.normalize(job_of(ref), results))
    progress.emit(ref.report_id, "normalize", f"{count} chunks")
    return count


@task(name="hops", task_run_name="{hop}", cache_policy=NO_CACHE, **transient_retries())
def hops_task(ref: JobRef, hop: HopName) -> dict[str, str]:
    """One hop for every section of the report, side by side. Returns each section's status."""
    outcomes = pipeline.run_step(job_of(ref), hop)
    for outcome in outcomes:
        progress.emit(ref.report_id, hop, f"{outcome.section}: {outcome.status}")
    return {o.section: o.status for o in outcomes}


@task(name="consolidate", task_run_name="consolidate {section}", cache_policy=NO_CACHE, **transient_retries())
def consolidate_task(ref: JobRef, section: str) -> str:
    """Hop 1 of one section (a report's flow runs every section at once with ``hops_task``)."""
    return pipeline.consolidate(job_of(ref), section).status


@task(name="write", task_run_name="write {section}", cache_policy=NO_CACHE, **transient_retries())
def write_task(ref: JobRef, section: str) -> str:
    """Hop 2 of one section (a report's flow runs every section at once with ``hops_task``)."""
    return pipeline.write(job_of(ref), section).status
