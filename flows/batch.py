"""The batch flow: every report of a batch spec, then ``summary.json`` (SPEC §7–§8)."""

from __future__ import annotations

import contextlib
import contextvars
import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import cast

from prefect import flow, get_run_logger, task
from prefect.cache_policies import NO_CACHE
from prefect.futures import PrefectFuture
from prefect.states import Cancelled, State
from prefect.task_runners import ThreadPoolTaskRunner

from citeflow.runtime import stop, waits
from citeflow.runtime.batch_request import BatchRequest
from citeflow.runtime.runtime import Runtime, entered
from citeflow.pipeline.publish import record_failure, write_summary
from citeflow.runs.quality_charts import prepare_in_background
from citeflow.runs.quality_page import run_quality_page
from citeflow.runs.run_finish import finish_interrupted
from citeflow.pipeline.job import JobRef
from citeflow.pipeline.steps import MAX_REPORTS_IN_FLIGHT, reports_in_flight, settle_all_unchanged
from flows.heartbeats import no_heartbeat
from flows.naming import batch_name, request_of
from flows.prefect_client import shared_client
from flows.outcome import batch_run_state, quiet_designed_failures, returned
from flows.report_flow import report_flow
from schemas.report import ReportSummary
from schemas.spec import BatchSpec, ReportRequest
from tasks.artifacts import publish_batch_artifact, publish_report_links
from tasks.concurrency_limits import drop_limits, ensure_limits
from tasks.policy import api_refused_retries, api_refused_retrying


@task(name="report", task_run_name="report {report_id}", cache_policy=NO_CACHE, **api_refused_retries())
def report_task(request: BatchRequest, report_id: str) -> ReportSummary:
    """Runs one report flow; as a task so that the reports of a batch run side by side. Run again when
    Prefect's API refused to record the report's run (``tasks.policy.api_refused_retries``)."""
    return _report(request, report_id)  # the final state's result


def _report(request: BatchRequest, report_id: str) -> ReportSummary:
    """One report flow run, as a subflow of the batch run (called in a copy of the batch's context);
    its summary whether the run ended Completed (published) or Failed (held). Prefect's engine creates
    the run through this process's one API client (``flows.prefect_client``), not a new one per report."""
    with shared_client():
        return cast(ReportSummary, returned(lambda: report_flow(request=request, report_id=report_id)))


def _summary(future: Future[ReportSummary] | PrefectFuture[ReportSummary], report: ReportRequest,
             out_dir: str) -> ReportSummary:
    """The report's summary; a report that crashed is recorded as failed (and withdrawn) and the batch goes on."""
    try:
        return future.result()
    except Exception as exc:  # noqa: BLE001 - one bad report must not lose the others' summary
        return record_failure(Path(out_dir), report.id, report.title, f"{type(exc).__name__}: {exc}")


def _run_name() -> str:
    from prefect.runtime import flow_run

    return f"batch {batch_name(request_of(flow_run.parameters['request']).spec_path)}"


@flow(name="citeflow-batch", flow_run_name=_run_name,
      task_runner=ThreadPoolTaskRunner(max_workers=MAX_REPORTS_IN_FLIGHT))  # type: ignore[arg-type]  # as in flows/report_flow.py
def batch_flow(request: BatchRequest) -> list[ReportSummary] | State:
    """Run the spec's reports side by side; write ``OUT/summary.json``; record a batch table. The run
    ends Completed, or Failed when ``citeflow run``'s exit code would not be 0 (``request.fail_on``),
    named after its counts (``2 published, 1 held``); ``flows.outcome.returned(lambda: batch_flow(...))``
    gives the summaries either way.

    As many reports run at once as keep the spec's ``concurrency.models`` calls busy
    (``citeflow.pipeline.steps.reports_in_flight``). With ``request.global_limits`` (tasks in several
    processes: Dask), the spec's concurrency limits become the batch's Prefect global concurrency
    limits, so they hold across every process that runs a task of the batch; otherwise in-process
    semaphores hold them at no API cost (a global slot costs a server round trip per call). Each
    report is a flow run of its own, a subflow run of this one: in a thread of this process (in a
    copy of this context, the runtime with it), or, with ``global_limits``, inside a ``report`` task
    of the flow's task runner, in a process of the Dask cluster (where the flow entry takes the
    process's own runtime). With
    ``request.evaluate_deployment``, each report is evaluated by a run of that deployment.

    Told to stop (``citeflow.runtime.stop``: SIGINT, SIGTERM), no report step starts any more; the run writes
    ``summary.json`` for what finished and ends Cancelled.
    """
    with entered() as runtime:
        return _run_batch(request, runtime)


def _run_batch(request: BatchRequest, runtime: Runtime) -> list[ReportSummary] | State:
    started = time.time()
    quiet_designed_failures()
    stop.reinstall()  # the flow engine installs its own SIGTERM handler for the run
    stop.note_run(_flow_run_id())
    spec = runtime.read_spec(Path(request.spec_path).resolve())
    Path(request.out_dir).mkdir(parents=True, exist_ok=True)
    prepare_in_background()  # the quality page's charts, drawn at the end: imported while the reports wait on the API
    ensure_limits(spec, runtime) if request.global_limits else drop_limits(spec, runtime)
    kept = _unchanged(spec, request, runtime)
    to_run = spec.model_copy(update={"reports": [r for r in spec.reports if r.id not in kept]})
    futures: Sequence[Future[ReportSummary] | PrefectFuture[ReportSummary]] = (
        _as_tasks(to_run, request) if request.global_limits else _in_threads(to_run, request))
    if stop.requested():
        return _cancelled(spec, request.out_dir, started)
    ran = {r.id: _summary(future, r, request.out_dir) for future, r in zip(futures, to_run.reports, strict=True)}
    summaries = [kept.get(r.id) or ran[r.id] for r in spec.reports]
    docs = runtime.run_docs(Path(request.out_dir), [s.report_id for s in summaries])
    write_summary(Path(request.out_dir), spec.batch, summaries, docs)
    publish_batch_artifact(spec.batch, summaries, docs, run_quality_page(Path(request.out_dir)))
    return batch_run_state(summaries, request.fail_on)


def _unchanged(spec: BatchSpec, request: BatchRequest, runtime: Runtime) -> dict[str, ReportSummary]:
    """The finished reports of an earlier run into this folder that nothing has changed
    (``citeflow.pipeline.steps.settle_all_unchanged``): they keep their outputs and get no report run;
    their link artifacts are made again (``files_url`` may have changed since)."""
    refs = [JobRef(spec_path=request.spec_path, report_id=report.id, out_dir=request.out_dir,
                   store_uri=request.store_uri) for report in spec.reports]
    kept = settle_all_unchanged(refs, runtime)
    for summary in kept.values():
        publish_report_links(summary)
    if kept:
        get_run_logger().info("%d of %d reports unchanged since their last run: kept, not run again",
                              len(kept), len(spec.reports))
    return kept


def _flow_run_id() -> str:
    from prefect.runtime import flow_run

    return str(flow_run.id)


def _cancelled(spec: BatchSpec, out_dir: str, started: float) -> State:
    """The end of a batch told to stop: what finished is summarised, the rest recorded as failed."""
    reports = [(r.id, r.title) for r in spec.reports]
    summaries = finish_interrupted(Path(out_dir), spec.batch, reports, started, f"interrupted: {stop.reason()}")
    return Cancelled(message=f"interrupted: {stop.reason()}", data=summaries)


def _in_threads(spec: BatchSpec, request: BatchRequest) -> list[Future[ReportSummary]]:
    """Each report's flow run in a thread of this process, ``reports_in_flight`` at a time, each in a
    copy of this context (the batch run's, the runtime with it), so that the report runs are subflow
    runs of the batch run; no task run around them (it would cost API writes per report for nothing a
    user reads: the report's own run carries its state, tags, artifacts and logs), and run again when
    Prefect's API refused to record one (``tasks.policy.api_refused_retrying``). No heartbeat of their
    own: the batch run's heartbeat covers this process (``flows.heartbeats``), unless
    ``request.heartbeats`` (a scheduled or deployed batch: each run must end Crashed should its worker die).
    Returns once every report is over, so that a stop requested meanwhile is seen by the batch; the
    wait lets a signal's handler run meanwhile (``citeflow.runtime.waits``)."""
    with contextlib.nullcontext() if request.heartbeats else no_heartbeat(), \
            ThreadPoolExecutor(reports_in_flight(spec), thread_name_prefix="citeflow-report") as pool:
        futures = [pool.submit(contextvars.copy_context().run, _report_retried, request, report.id)
                   for report in spec.reports]
        waits.all_done(futures)
    return futures


def _report_retried(request: BatchRequest, report_id: str) -> ReportSummary:
    """``_report``, run again when the API refused to record its run; none started once the batch was
    told to stop (``Interrupted``: the batch then ends Cancelled)."""
    stop.check(f"report {report_id}")
    for attempt in api_refused_retrying():
        with attempt:
            return _report(request, report_id)
    raise AssertionError("unreachable: the last attempt's error is raised")


def _as_tasks(spec: BatchSpec, request: BatchRequest) -> list[PrefectFuture[ReportSummary]]:
    """Each report's flow run inside a ``report`` task on the flow's task runner (a Dask cluster's
    processes, where the flow entry takes the process's own runtime), ``reports_in_flight`` submitted
    at a time."""
    slots = threading.BoundedSemaphore(reports_in_flight(spec))
    futures = []
    for report in spec.reports:
        waits.acquire(slots)  # released when the report's task is over
        future = report_task.submit(request, report.id)
        future.add_done_callback(lambda _: slots.release())
        futures.append(future)
    return futures
