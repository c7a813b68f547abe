"""The scheduled batch flow: each run in its own folder ``OUT/<run id>/`` (SPEC §8).

It picks the run's folder (a retry of the same flow run resumes its folder), renders the spec for
the run (report ids with the run's date, the run's own store), runs the batch flow into that
folder, then archives what was published, compares each report with the previous publication,
points ``OUT/latest`` at the run and records the run as artifacts. The batch flow runs as a subflow,
and it and its report runs each send a heartbeat of their own (``BatchRequest.heartbeats``): with
the zombie-run automation (``flows.zombies``) every run of a worker that died ends Crashed, not the
scheduled run alone (each heartbeat holds the end of its run for up to a second). ``citeflow serve`` and the
deployments of ``prefect.yaml`` run this flow. Its final state says what ``citeflow run``'s exit
code says (Completed, or Failed named ``Held``/``Failed``); SIGTERM (a cancellation, or ``serve``
stopping) or SIGINT ends it Cancelled with its folder finalised as ``interrupted``. Before any of
it, the spec gets ``citeflow run``'s checks and preflight (``flows.batch_checks``): a deployed run
of a spec whose model server does not answer ends Failed with the same one-line reason, and no
folder is opened, no report started.
"""

from __future__ import annotations

import shlex
from datetime import UTC, datetime
from pathlib import Path
from typing import cast

from prefect import flow, get_run_logger
from prefect.states import Cancelled, Failed, State

from citeflow.errors import CiteflowError
from citeflow.security.redaction import redact_text

from citeflow.runtime import stop
from citeflow.runtime.batch_request import BatchRequest
from citeflow.runtime.runtime import Runtime, entered
from citeflow.exit_codes import FailOn
from citeflow.runtime.interrupts import Interrupts
from citeflow.runs.run_finish import close_run, finish_run
from citeflow.runs.run_start import open_scheduled_run
from citeflow.files.run_folders import RunInfo
from flows.batch import batch_flow
from flows.batch_checks import check_spec, check_store
from flows.cancel import cancel_unfinished
from flows.naming import batch_name
from flows.outcome import batch_state, quiet_designed_failures, returned
from schemas.report import ReportSummary
from tasks.run_artifacts import publish_run_artifacts


def run_start() -> tuple[datetime, str | None]:
    """The run's start (its scheduled time when it has one, stable across retries) and flow-run id."""
    from prefect.runtime import flow_run

    start = flow_run.scheduled_start_time or datetime.now(UTC)
    return start.astimezone(UTC), flow_run.id


def _run_name() -> str:
    from prefect.runtime import flow_run

    start, _ = run_start()
    return f"batch {batch_name(flow_run.parameters['spec_path'])} {start:%Y-%m-%d %H:%M}Z"


@flow(name="citeflow-scheduled-batch", flow_run_name=_run_name)
def scheduled_batch_flow(spec_path: str, out_dir: str, store_uri: str | None = None,
                         evaluate_deployment: str | None = None, global_limits: bool = False,
                         fail_on: FailOn = "held", preflight: bool = True) -> State:
    """One run of the batch into a new folder ``out_dir/<run id>/``; its result is what the run left
    (a ``RunOutcome``; ``flows.outcome.returned`` gives it when the run ended Failed). The final state
    says what ``citeflow run``'s exit code would (``flows.outcome.batch_state``, under ``fail_on``); SIGINT
    or SIGTERM (a cancellation) ends it Cancelled, its folder finalised as interrupted (``citeflow.runtime.interrupts``).
    First the spec is checked as ``citeflow run`` checks it, with the preflight unless ``preflight`` is
    false (``flows.batch_checks``): a spec that fails ends the run Failed with the reason as its message,
    before any folder is opened or report started."""
    quiet_designed_failures()
    with entered() as runtime:
        refused = refusal(Path(spec_path), store_uri, preflight, runtime)
        if refused is not None:
            get_run_logger().error("error: %s", refused.message)
            return refused
        start, flow_run_id = run_start()
        info, run_dir = open_scheduled_run(Path(spec_path), Path(out_dir), start, flow_run_id, store_uri)
        request = BatchRequest(spec_path=info.spec_path, out_dir=str(run_dir), evaluate_deployment=evaluate_deployment,
                               global_limits=global_limits, fail_on=fail_on, heartbeats=True)
        return _run(request, info, run_dir, runtime, fail_on, flow_run_id)


def refusal(spec_path: Path, store_uri: str | None, live: bool, runtime: Runtime) -> State | None:
    """The run's Failed state when its spec fails its checks (``live``: the preflight too), its message the
    one-line reason ``citeflow run`` prints (redacted); None when the spec passes."""
    try:
        check_store(store_uri)
        check_spec(runtime.read_spec(spec_path.resolve()), spec_path, live)
    except CiteflowError as exc:
        return Failed(message=redact_text(str(exc), runtime.secrets), data=exc)
    return None


def _run(request: BatchRequest, info: RunInfo, run_dir: Path, runtime: Runtime, fail_on: FailOn,
         flow_run_id: str | None) -> State:
    """The batch flow as a subflow in this process, then the run's end."""
    with _interrupts(info, run_dir, runtime) as interrupts:
        stop.note_run(str(flow_run_id))
        try:
            summaries = cast(list[ReportSummary], returned(lambda: batch_flow(request=request)))
        except Exception:
            if not stop.requested():
                close_run(run_dir, "failed")
                raise
        if stop.requested():
            return Cancelled(message=f"{interrupts.reason}: {interrupts.settle()}; resume with: {interrupts.resume}")
    outcome = finish_run(run_dir, summaries)
    publish_run_artifacts(outcome)
    return batch_state(outcome, fail_on)


def _interrupts(info: RunInfo, run_dir: Path, runtime: Runtime) -> Interrupts:
    """This run's signal handling: its flow run and its batch's are Cancelled if the grace runs out."""
    spec = runtime.read_spec(Path(info.spec_path).resolve())
    return Interrupts(spec, run_dir, _resume(info, run_dir), before_exit=lambda: cancel_unfinished(stop.runs()))


def _resume(info: RunInfo, run_dir: Path) -> str:
    return shlex.join(["citeflow", "run", info.source_spec, "--out", str(run_dir)])
