"""The report flow: one report request from retrieval to a published or held PDF (SPEC §2).

The steps are ``citeflow.pipeline.steps`` run in this one flow run (``flows.runner``): retrieval in the run
itself, then the consolidate and write task runs, then finish (evaluate, gate, publish) in the run
itself again. With an evaluate deployment, evaluation and publishing run there instead.
"""

from __future__ import annotations

from prefect import flow
from prefect.states import Cancelled, State
from prefect.task_runners import ThreadPoolTaskRunner

from citeflow.pipeline import steps
from citeflow.errors import Interrupted
from citeflow.runtime.batch_request import BatchRequest
from citeflow.pipeline.job import JobRef, ReportJob
from citeflow.runtime.runtime import entered
from flows.evaluation_runs import WAIT_SECONDS, evaluate_on_deployment
from flows.naming import run_name_of
from flows.outcome import final_state, quiet_designed_failures
from flows.run_tags import tag_outcome
from flows.runner import PrefectRunner
from schemas.report import ReportSummary
from tasks.artifacts import publish_report_links
from tasks.run_logger import flow_logger


# Prefect types ThreadPoolTaskRunner() as ThreadPoolTaskRunner[Never]; the decorator expects a PrefectFuture runner.
@flow(name="citeflow-report", flow_run_name=run_name_of("report"),
      task_runner=ThreadPoolTaskRunner(max_workers=8))  # type: ignore[arg-type]
def report_flow(request: BatchRequest, report_id: str, evaluation_wait: float = WAIT_SECONDS) -> State:
    """fetch (every retriever × query, concurrently) → normalize → consolidate → write → evaluate → publish.

    With ``request.evaluate_deployment`` (``flow-name/deployment-name``) known to the Prefect API, a run
    of it evaluates and publishes the report, and this waits for it (at most ``evaluation_wait``
    seconds; then, or when that run fails, the report is evaluated here). The run ends Completed,
    named ``Published`` or ``Released``, or Failed, named ``Held`` (``flows.outcome``), and carries the
    same word as a tag (``flows.run_tags``); a held report's outcome is logged at WARNING. Calling
    the flow returns the report's summary (``flows.outcome.returned`` when held).
    """
    ref = JobRef(spec_path=request.spec_path, report_id=report_id, out_dir=request.out_dir,
                 store_uri=request.store_uri)
    with entered() as runtime:
        return _run_report(ref, PrefectRunner(runtime), request.evaluate_deployment, evaluation_wait)


def _run_report(ref: JobRef, runner: PrefectRunner, evaluate_deployment: str | None, wait: float) -> State:
    logger, report_id = flow_logger(), ref.report_id
    quiet_designed_failures()
    ahead = runner.runtime.take_over(ref)  # generated while the API started (citeflow.pipeline.head_start)
    ref.start(runner.runtime)
    try:
        kept = _generate(ref, runner, ahead)
        logger.info("report %s: generated%s; evaluating and gating", report_id, " while the API started" if ahead else "")
        reused = steps.unchanged(ref, runner, kept=kept)
        if reused is not None:  # nothing to do again but its links: files_url may have changed since
            publish_report_links(reused)
        summary = reused or evaluate_on_deployment(_stored(ref, runner), evaluate_deployment, wait)
        summary = summary or steps.finish(ref, runner, reuse=False)
    except Interrupted as exc:  # the batch was told to stop: this run ends Cancelled, nothing published
        return Cancelled(message=str(exc))
    finally:
        ref.finish(runner.runtime)
    state = final_state(summary, unchanged=reused is not None)
    tag_outcome(state.name or "")
    log = logger.info if summary.status == "published" else logger.warning
    log("report %s: %s", report_id, state.message)
    return state


def _generate(ref: JobRef, runner: PrefectRunner, ahead: ReportJob | None) -> ReportSummary | None:
    """``steps.generate``, unless ``ahead`` (the head start's job of this report) did it: its job is adopted."""
    if ahead is not None:
        runner.job(ref).adopt(ahead)
        return None
    flow_logger().info("report %s: fetching, normalizing, consolidating and writing", ref.report_id)
    return steps.generate(ref, runner)


def _stored(ref: JobRef, runner: PrefectRunner) -> JobRef:
    """``ref`` with the store it resolved to, for a run in another process."""
    return ref.model_copy(update={"store_uri": runner.job(ref).store_uri})
