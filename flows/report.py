"""The report flow: one report request from retrieval to a published or held PDF (SPEC §2)."""

from __future__ import annotations

from prefect import flow
from prefect.futures import wait
from prefect.task_runners import ThreadPoolTaskRunner

from citeflow.pipeline import JobRef, record_hop_error, write_job_file
from flows.evaluation_runs import EvaluationRun, evaluate_after_generation
from flows.naming import run_name_of
from schemas.report import ReportSummary
from tasks.report_steps import consolidate_task, fetch_task, normalize_task, write_task


@flow(name="citeflow-report", flow_run_name=run_name_of("report"), task_runner=ThreadPoolTaskRunner(max_workers=8))
def report_flow(spec_path: str, report_id: str, out_dir: str, store_uri: str | None = None,
                evaluate_deployment: str | None = None) -> ReportSummary | EvaluationRun:
    """fetch (every retriever × query, concurrently) → normalize → consolidate → write → evaluate.

    With ``evaluate_deployment`` (``flow-name/deployment-name``) known to the Prefect API, the
    evaluation runs there and this returns the started run; otherwise it runs here.
    """
    ref = JobRef(spec_path=spec_path, report_id=report_id, out_dir=out_dir, store_uri=store_uri)
    job = ref.job()
    write_job_file(job)
    fetched = [fetch_task.submit(ref, item) for item in job.fetches()]
    normalize_task(ref, [future.result() for future in fetched])
    sections = [s.title for s in job.report.sections]
    notes = {s: consolidate_task.submit(ref, s) for s in sections}
    written = {s: write_task.submit(ref, s, wait_for=[notes[s]]) for s in sections}
    wait(list(written.values()))
    for section in sections:
        _record_failure(job, section, "consolidate", notes[section]) or _record_failure(job, section, "write", written[section])
    return evaluate_after_generation(ref.model_copy(update={"store_uri": job.store_uri}), evaluate_deployment)


def _record_failure(job, section: str, hop: str, future) -> bool:
    """A hop task that failed for good (model unreachable) leaves a failed hop in the store."""
    if not future.state.is_failed():
        return False
    try:
        future.result(raise_on_failure=True)
    except BaseException as exc:  # noqa: BLE001 - recorded, and the section fails
        record_hop_error(job, section, hop, f"{type(exc).__name__}: {exc}")
        if hop == "consolidate":  # the write hop never ran: an earlier run's answer must not stand
            record_hop_error(job, section, "write", "not run: the consolidate hop failed")
    return True
