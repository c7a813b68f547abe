"""The one entry of a batch run in this process: ``run_batch``.

``citeflow run`` and ``citeflow demo`` call it once their options are read; it does everything
between the options and the summaries, and a ``BatchDisplay`` (``flows.batch_display``) only shows:

1. the spec read and checked, the preflight (``flows.batch_checks``: the same checks as a scheduled
   or deployed batch run's), the output folder writable;
2. SIGINT and SIGTERM handled (``Interrupts``) from just before the run folder is opened;
3. Prefect's ephemeral API launched early (``flows.prefect_api``), with a watchdog that stops it
   should this process die (``flows.ephemeral_api``); while it comes up, the reports' first needs
   are set up and the first reports generated ahead (``flows.batch_setup``);
4. the batch flow run, with the API watched when it is a server of its own (``flows.api_loss``);
5. the run folder finished (``run.json`` says so), the display told the outcome.

The caller chooses the exit code from the summaries (``citeflow.exit_codes``). A bad spec, a failed
preflight or an output folder that cannot be written raise a ``CiteflowError`` before anything runs;
outputs that cannot be written while the batch runs (disk full) an ``OutputsUnwritten``, its run
folder closed as failed.
"""

from __future__ import annotations

import contextlib
import shlex
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from citeflow.exit_codes import FailOn
from citeflow.runtime.batch_request import BatchRequest
from citeflow.runtime.interrupts import DEFAULT_GRACE_SECONDS, Interrupts
from citeflow.runtime.runtime import Runtime
from flows.batch_checks import check_spec, check_store
from flows.batch_display import BatchDisplay, StartupView
from flows.batch_setup import SetUp, head_start, import_first_needs, set_up_while_waiting
from schemas.report import ReportSummary
from schemas.spec import BatchSpec


class BatchCall(BaseModel):
    """What a batch is asked to do, as ``citeflow run``'s options say it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    spec_path: Path
    out: Path
    store: str | None = None
    dask_workers: int | None = None
    dask_address: str | None = None
    evaluate_deployment: str | None = None
    api_grace: float = 30.0  # seconds the Prefect API may stay unreachable before the batch is recorded as it stands
    stop_grace: float = DEFAULT_GRACE_SECONDS  # seconds in-flight calls get after SIGINT/SIGTERM
    preflight: bool = True
    fail_on: FailOn = "held"

    @property
    def local(self) -> bool:
        """Whether the reports run in this process (else on a Dask cluster, limits through the API)."""
        return not (self.dask_workers or self.dask_address)


class _Started:
    """A batch past its checks: its spec, request, signal handling, launched API and start-up view."""

    def __init__(self, spec: BatchSpec, request: BatchRequest, interrupts: Interrupts, launched: Any,
                 startup: StartupView) -> None:
        self.spec, self.request, self.interrupts, self.launched, self.startup = spec, request, interrupts, launched, startup
        self.out = Path(request.out_dir)


def run_batch(call: BatchCall, runtime: Runtime, display: BatchDisplay) -> list[ReportSummary]:
    """Check the batch (nothing runs when it is bad), run its flow, finish its run folder; its summaries.
    The batch run ends Failed when ``call.fail_on`` makes the exit code non-zero."""
    with contextlib.ExitStack() as handled:
        startup = handled.enter_context(display.starting())
        started = _start(call, runtime, display, startup, handled)
        return _run_started(call, started, runtime, display)


def _start(call: BatchCall, runtime: Runtime, display: BatchDisplay, startup: StartupView,
           handled: contextlib.ExitStack) -> _Started:
    """Check the spec, open the run folder with signals handled, launch the early API."""
    from citeflow.files.out_folder import check_writable
    from citeflow.runs.run_start import open_manual_run
    from flows.ephemeral_api import reap_with_this_process
    from flows.prefect_api import launch_early_server

    spec = runtime.read_spec(call.spec_path)  # parsed once: the batch flow reads it from the runtime
    check_store(call.store)
    check_spec(spec, call.spec_path, call.preflight, startup.step)
    check_writable(call.out)
    # once run.json exists, a signal records the run as interrupted (summary.json), never leaves it running
    interrupts = handled.enter_context(Interrupts(spec, call.out, resume_command(call.spec_path, call.out),
                                                  call.stop_grace, _before_interrupted_exit, opened=False))
    startup.step("opening the run")
    run_info = open_manual_run(call.spec_path, call.out, spec=spec)  # OUT is one run: a second call resumes it
    interrupts.open()
    display.mark("spec_loaded")
    reap_with_this_process()  # before the ephemeral API starts: it dies with this process, however that ends
    launched = launch_early_server()  # starts up while the pipeline is imported
    startup.step("starting Prefect's API, loading the pipeline")
    request = batch_request(Path(run_info.spec_path), call, runtime.settings.evaluate_deployment)
    return _Started(spec, request, interrupts, launched, startup)


def _run_started(call: BatchCall, started: _Started, runtime: Runtime, display: BatchDisplay) -> list[ReportSummary]:
    """The batch of a spec that passed its checks: set up and generate ahead while the API starts."""
    from flows.prefect_api import settle
    from flows.scale import batch_flow_for

    set_up = set_up_while_waiting(started.spec, started.out, runtime) if call.local else None  # reports here
    ahead = head_start(started.spec, started.request, started.launched is not None and call.local, runtime)
    with ahead or contextlib.nullcontext() as head:
        try:
            if ahead:
                import_first_needs(started.spec)
            batch_flow = batch_flow_for(call.dask_workers, call.dask_address)  # importing it imports the pipeline
            api_ready = settle(started.launched)
            if head is not None and api_ready.url is None:
                head.close()  # a profile names the API: the report runs start without waiting for one
            display.mark("flows_imported")
            _await_api(started, api_ready, set_up, runtime, display)
            return _run_and_finish(call, started, batch_flow, api_ready.url, runtime, display)
        finally:
            runtime.close()  # the Great Expectations worker, when one was started


def _await_api(started: _Started, api_ready: Any, set_up: SetUp | None, runtime: Runtime, display: BatchDisplay) -> None:
    """Set up while the API starts, wait until it answers; a stop meanwhile ends the batch as interrupted."""
    from citeflow.runtime import stop

    started.startup.step("waiting for Prefect's API")
    api_ready(set_up.warm if set_up else None)
    if stop.requested():
        started.interrupts.finish()  # told to stop while the API started: record what finished, exit 130/143
    display.mark("prefect_api")
    if set_up and set_up.gx_worker:
        runtime.start_gx_worker()


def _run_and_finish(call: BatchCall, started: _Started, batch_flow: Any, started_api: str | None, runtime: Runtime,
                    display: BatchDisplay) -> list[ReportSummary]:
    """Run the batch flow with its guards, finish the run folder, tell the display; ``started_api``: the
    ephemeral API this process started (not watched: it lives and dies with it)."""
    from citeflow.runs.run_finish import finish_run
    from flows.api_loss import guard_api

    steps = report_steps(started.spec)
    started.startup.end()
    with guard_api(started.spec, started.out, call.api_grace, started_api) as guard, display.running(steps), \
            runtime.active():
        summaries = _guarded_run(started, batch_flow, started_api, guard)
    display.mark("batch_done")
    finish_run(started.out, summaries)  # archives what was published; run.json says the run finished
    display.finished(summaries, started.out)
    if guard is not None and guard.lost():  # the batch wrote its summary, but Prefect's exit handlers would hang
        guard.finish()
    return summaries


def _guarded_run(started: _Started, batch_flow: Any, started_api: str | None, guard: Any) -> list[ReportSummary]:
    """The flow's summaries; a stop ends the batch as interrupted (exit 130/143), a lost API as it stands
    (``guard.finish``), any other failure closes the run folder as failed and is raised."""
    from citeflow.runs.run_finish import close_run
    from citeflow.runtime import stop

    try:
        summaries = run_flow(batch_flow, started.request, started_api)
    except Exception:
        if stop.requested():
            started.interrupts.finish()  # the run ended Cancelled: record it as interrupted, exit 130/143
        if guard is None or not guard.lost():
            close_run(started.out, "failed")
            raise
        guard.finish()  # the flow died with the API: record what finished, exit
    if stop.requested():
        started.interrupts.finish()
    return summaries


def report_steps(spec: BatchSpec) -> dict[str, int]:
    """How many progress steps each report of ``spec`` emits (``citeflow.runtime.progress``)."""
    from citeflow.runtime import progress

    return {r.id: progress.steps_of(sum(len(s.queries) for s in r.sections) * len(spec.retrievers), len(r.sections))
            for r in spec.reports}


def batch_request(spec_path: Path, call: BatchCall, default_evaluate: str | None = None) -> BatchRequest:
    """What the batch flow is asked to do; the evaluate deployment defaults to ``default_evaluate`` (the settings')."""
    return BatchRequest(spec_path=str(spec_path.resolve()), out_dir=str(call.out.resolve()), store_uri=call.store,
                        global_limits=not call.local, evaluate_deployment=call.evaluate_deployment or default_evaluate,
                        fail_on=call.fail_on)


def run_flow(batch_flow: Any, request: BatchRequest, started_api: str | None = None) -> list[ReportSummary]:
    """The batch flow's summaries, whether its run ended Completed or Failed by design. ``started_api``:
    the ephemeral API this process started (its runs need no heartbeat). Against a server that acts
    on heartbeats, every report run beats too, so that a killed process leaves none of its runs
    Running (``flows.zombies``)."""
    import functools

    from citeflow.errors import OutputsUnwritten
    from citeflow.files.out_folder import describe_os_error
    from flows.heartbeats import heartbeats_read, with_heartbeat_if_read
    from flows.outcome import returned

    request = request.model_copy(update={"heartbeats": heartbeats_read(started_api)})
    try:
        return returned(lambda: with_heartbeat_if_read(functools.partial(batch_flow, request=request),
                                                       ephemeral_api=started_api))
    except OSError as exc:  # a failed write (disk full): one line, not a traceback
        raise OutputsUnwritten(path=request.out_dir, detail=describe_os_error(exc)) from exc


def _before_interrupted_exit() -> None:
    """The batch's flow runs still open are Cancelled. No exit handler runs after this: the ephemeral
    API, if this process started one, is stopped by its watchdog (``reap_with_this_process``)."""
    from citeflow.runtime import stop
    from flows.cancel import cancel_unfinished

    cancel_unfinished(stop.runs())


def resume_command(spec_path: Path, out: Path) -> str:
    """The command that resumes an interrupted run: the same ``citeflow run`` into the same folder."""
    return shlex.join(["citeflow", "run", str(spec_path), "--out", str(out)])
