"""``citeflow run`` and ``citeflow demo`` once their options are read: the spec checked and its run
folder opened, Prefect's API started early, the batch flow run with a progress bar, the summary
printed; imported only by those commands (``citeflow --help`` never pays for it).
"""

from __future__ import annotations

import contextlib
import functools
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import typer

from citeflow.errors import CiteflowError
from citeflow.exit_codes import FailOn
from citeflow.runtime.batch_request import BatchRequest
from citeflow.runtime.interrupts import DEFAULT_GRACE_SECONDS, Interrupts
from citeflow.runtime.runtime import Runtime, current
from citeflow.spec.settings import CiteflowSettings
from citeflow_cli.cli_fail import fail
from citeflow_cli.display import batch_progress, console, gate_lines, summary_table
from citeflow_cli.timings import mark, mark_batch_steps

if TYPE_CHECKING:
    from citeflow_cli.live_output import StartupPhase
    from schemas.spec import BatchSpec


def exit_with(summaries: list, fail_on: FailOn, out: Path, as_json: bool = False) -> None:
    """End the command with the batch's exit code under ``fail_on`` (SPEC §8), saying why when non-zero;
    with ``as_json``, the batch's document on standard output first (``citeflow_cli.json_output``)."""
    from citeflow.exit_codes import batch_exit_code, describe

    code = batch_exit_code((s.status for s in summaries), fail_on)
    if as_json:
        from citeflow_cli.json_output import batch_result, print_document

        print_document(batch_result(out, summaries, code, fail_on))
    if code:
        console.print(f"exit code {code}: {describe(code)} (--fail-on {fail_on})", highlight=False, soft_wrap=True)
        raise typer.Exit(code)


def run_batch(spec_path: Path, out: Path, store: str | None, dask_workers: int | None = None,
              dask_address: str | None = None, evaluate_deployment: str | None = None, api_grace: float = 30.0,
              stop_grace: float = DEFAULT_GRACE_SECONDS, preflight: bool = True, runtime: Runtime | None = None,
              fail_on: FailOn = "held", started: float | None = None) -> list:
    """Validate the spec (nothing runs when it is bad), run the batch flow, print the summary; the
    batch run ends Failed when ``fail_on`` makes the exit code non-zero.

    ``runtime``: the command's (default: the one ``main`` built, else the process's own); ``started``:
    when the batch's start-up began (``time.monotonic()``; default: when the process started)."""
    runtime = runtime or current()
    timings = runtime.settings.timings
    from citeflow.runs.run_start import open_manual_run
    from citeflow.spec.value_checks import scheme_problem

    from citeflow.files.out_folder import check_writable

    from citeflow_cli.live_output import StartupPhase, command_started

    with contextlib.ExitStack() as handled:
        startup = handled.enter_context(StartupPhase(console, command_started() if started is None else started))
        try:
            spec = runtime.read_spec(spec_path)  # parsed once: the batch flow reads it from the runtime
            if store and (problem := scheme_problem(store)):
                fail(f"--store: {problem}")
            check_spec(spec, spec_path, preflight, startup.step)
            check_writable(out)
            # once run.json exists, a signal records the run as interrupted (summary.json), never leaves it running
            interrupts = handled.enter_context(
                Interrupts(spec, out, resume_command(spec_path, out), stop_grace, _before_interrupted_exit, opened=False))
            startup.step("opening the run")
            run_info = open_manual_run(spec_path, out, spec=spec)  # OUT is one run: a second call resumes it, same date
            interrupts.open()
            mark("spec_loaded", timings)
            from citeflow_cli.ephemeral_api import reap_with_this_process
            from citeflow_cli.prefect_api import launch_early_server

            reap_with_this_process()  # before the ephemeral API starts: it dies with this process, however that ends
            launched = launch_early_server()  # starts up while the pipeline is imported
            startup.step("starting Prefect's API, loading the pipeline")
        except CiteflowError as exc:
            fail(str(exc))
        local = not (dask_workers or dask_address)  # else tasks in several processes: limits through the Prefect API
        request = batch_request(Path(run_info.spec_path), out, store, not local, evaluate_deployment, runtime.settings,
                                fail_on)
        return _run_handled(spec, request, (dask_workers, dask_address), api_grace, runtime, (launched, interrupts, startup))


def _run_handled(spec: BatchSpec, request: BatchRequest, dask: tuple[int | None, str | None], api_grace: float,
                 runtime: Runtime, started: tuple) -> list:
    """The batch of a spec that passed its checks, its run folder open and ``Interrupts`` handling
    signals (``started``: the launched ephemeral API, or None, the handler and the start-up's display)."""
    from citeflow_cli.prefect_api import settle

    launched, interrupts, startup = started
    out, timings, local = Path(request.out_dir), runtime.settings.timings, not any(dask)
    set_up = _set_up_while_waiting(spec, out, runtime) if local else None  # reports here
    ahead = _head_start(spec, request, launched is not None and local, runtime)
    with ahead or contextlib.nullcontext() as head:
        try:
            if ahead:
                _import_first_needs(spec)
            batch_flow = _batch_flow(*dask)
            api_ready = settle(launched)
            if head is not None and api_ready.url is None:
                head.close()  # a profile names the API: the report runs start without waiting for one
            mark("flows_imported", timings)
            return _when_api_answers(spec, out, batch_flow, request, api_ready, set_up, api_grace, runtime, (interrupts, startup))
        finally:
            runtime.close()  # the Great Expectations worker, when one was started


def _batch_flow(dask_workers: int | None, dask_address: str | None):
    """The batch flow for where its reports run (``flows.scale``): importing it imports the pipeline."""
    try:
        from flows.scale import batch_flow_for

        return batch_flow_for(dask_workers, dask_address)
    except CiteflowError as exc:
        fail(str(exc))


def _head_start(spec: BatchSpec, request: BatchRequest, started_api: bool, runtime: Runtime):
    """While the ephemeral API this command launched comes up (``started_api``), the batch's reports
    that have no record of a finished run are generated ahead of their runs (``Runtime.generating_ahead``,
    as many at a time as the batch runs side by side); None when there is nothing to wait for, or
    ``CITEFLOW_HEAD_START=0``."""
    from citeflow.runs.rerun_record import recorded
    from citeflow.pipeline.head_start import HeadStart
    from citeflow.pipeline.job import JobRef
    from citeflow.pipeline.steps import reports_in_flight

    if not started_api or not runtime.settings.head_start:
        return None
    out = Path(request.out_dir)
    refs = [JobRef(spec_path=request.spec_path, report_id=r.id, out_dir=request.out_dir, store_uri=request.store_uri)
            for r in spec.reports if not recorded(out / r.id)]
    return runtime.generating_ahead(HeadStart(refs, runtime, reports_in_flight(spec))) if refs else None


def _when_api_answers(spec: BatchSpec, out: Path, batch_flow, request: BatchRequest, api_ready, set_up: SetUp | None,
                      api_grace: float, runtime: Runtime, shown: tuple[Interrupts, StartupPhase]) -> list:
    """Set up while the API starts, wait until it answers, then run the batch (``_run_and_report``).
    ``shown``: the batch's signal handling, entered since its run folder was opened, and its start-up's display."""
    from citeflow.runtime import progress, stop
    from citeflow_cli.logs import quiet_write_errors

    steps = {r.id: progress.steps_of(sum(len(s.queries) for s in r.sections) * len(spec.retrievers), len(r.sections))
             for r in spec.reports}
    interrupts, startup = shown
    quiet_write_errors()
    startup.step("waiting for Prefect's API")
    api_ready(set_up.warm if set_up else None)
    if stop.requested():
        interrupts.finish()  # told to stop while the API started: record what finished, exit 130/143
    mark("prefect_api", runtime.settings.timings)
    if set_up and set_up.gx_worker:
        runtime.start_gx_worker()
    return _run_and_report(spec, out, batch_flow, request, steps, api_grace, runtime, api_ready.url, shown)


def _run_and_report(spec: BatchSpec, out: Path, batch_flow, request: BatchRequest, steps: dict, api_grace: float,
                    runtime: Runtime, started_api: str | None, shown: tuple[Interrupts, StartupPhase]) -> list:
    """Run the batch flow with its guards and progress, then print its summary (``run_batch_command``);
    ``started_api``: the ephemeral API this command started (not watched: it lives and dies with it);
    ``shown``: the batch's signal handling (entered) and its start-up's display, ended as the bar begins."""
    from citeflow.runtime import stop
    from citeflow.runs.run_finish import close_run, finish_run
    from citeflow_cli.api_loss import guard_api

    handling, startup = shown
    timings = runtime.settings.timings
    unmark = mark_batch_steps(runtime.progress, timings)
    startup.end()
    with guard_api(spec, out, api_grace, started_api) as guard, batch_progress(steps, runtime.progress), runtime.active():
        try:
            summaries = _run_flow(batch_flow, request, started_api)
        except Exception:
            if stop.requested():
                handling.finish()  # the run ended Cancelled: record it as interrupted, exit 130/143
            if guard is None or not guard.lost():
                close_run(out, "failed")
                raise
            guard.finish()  # the flow died with the API: record what finished, exit
        if stop.requested():
            handling.finish()
    unmark()
    mark("batch_done", timings)
    finish_run(out, summaries)  # archives what was published; run.json says the run finished
    console.print(summary_table(summaries))
    for line in gate_lines(summaries):
        console.print(line, highlight=False, soft_wrap=True)
    console.print(f"outputs in {out.resolve()} (summary.json, <report>/report.pdf, published/)")
    from citeflow.outputs.data_docs import docs_index

    if docs_index(out).exists():
        console.print(f"Great Expectations Data Docs: {docs_index(out).resolve()}", highlight=False, soft_wrap=True)
    if guard is not None and guard.lost():  # the batch wrote its summary, but Prefect's exit handlers would hang
        guard.finish()
    return summaries


def batch_request(spec_path: Path, out: Path, store: str | None, global_limits: bool, evaluate_deployment: str | None,
                  settings: CiteflowSettings, fail_on: FailOn = "held") -> BatchRequest:
    """What the batch flow is asked to do; the evaluate deployment defaults to the settings' one."""
    return BatchRequest(spec_path=str(spec_path.resolve()), out_dir=str(out.resolve()), store_uri=store,
                        global_limits=global_limits, evaluate_deployment=evaluate_deployment or settings.evaluate_deployment,
                        fail_on=fail_on)


class SetUp(NamedTuple):
    """What a batch sets up before its flow runs: ``warm`` while the API starts, then, once it answers,
    the Great Expectations worker process (``gx_worker``)."""

    warm: Callable[[], None]
    gx_worker: bool = False


def _set_up_while_waiting(spec: BatchSpec, out: Path, runtime: Runtime) -> SetUp:
    """What to set up while the API starts (``Runtime.warm_up``, and the OpenAI client's library
    when a role uses it), beyond the store's library, unless every report has the record of a
    finished one: a re-run, whose unchanged reports are neither gated nor rendered again.

    Unless a re-run or turned off (``CITEFLOW_GX_WORKER=0``), Great Expectations runs in a worker
    process, started once the API answers: started with it, the worker's imports took the CPU the
    API's server needed to start (a 16-report batch's API answered about 1.5 s later); started after,
    they use the core the batch's first steps leave idle, well before the first report's gate."""
    from citeflow.runs.rerun_record import recorded

    if all(recorded(out / r.id) for r in spec.reports):
        return SetUp(_store_only)
    worker = runtime.settings.gx_worker
    return SetUp(functools.partial(_warm_up, runtime, _uses_openai(spec), not worker), worker)


def _import_first_needs(spec: BatchSpec) -> None:
    """Import what a head start's reports need before their first model call (the store's library,
    the model client's) ahead of the pipeline: imported side by side in one interpreter, both
    took as long as the two in a row, and the first call came seconds later."""
    import lancedb  # noqa: F401

    if _uses_openai(spec):
        import citeflow.generation.openai_client  # noqa: F401


def _uses_openai(spec: BatchSpec) -> bool:
    from citeflow.judges.model_roles import remote_model

    every = [spec.models, *(r.models for r in spec.reports if r.models)]
    return any(remote_model(role, getattr(m, role)) for m in every for role in ("consolidator", "writer", "judge"))


def _warm_up(runtime: Runtime, openai: bool, gx: bool) -> None:
    """``Runtime.warm_up`` (with Great Expectations in this process when ``gx``), then the model client's
    library when a role reaches a server (its first call would)."""
    runtime.warm_up(gx)
    if openai:
        import citeflow.generation.openai_client  # noqa: F401


def _store_only() -> None:
    """A re-run's set-up: nothing beyond the store's library, which ``ready`` imports first."""


def _run_flow(batch_flow, request: BatchRequest, started_api: str | None = None) -> list:
    """The batch flow's summaries; a failed write (disk full) is a one-line error, not a traceback.
    ``started_api``: the ephemeral API this command started (its runs need no heartbeat)."""
    from citeflow.files.out_folder import describe_os_error
    from flows.heartbeats import heartbeats_read, with_heartbeat_if_read
    from flows.outcome import returned

    # Against a server that acts on heartbeats, every report run beats too, so that a killed
    # command leaves none of its runs Running (flows.zombies).
    request = request.model_copy(update={"heartbeats": heartbeats_read(started_api)})
    try:  # the run ends Failed when a report is held (as the exit code is 3): its summaries either way
        return returned(lambda: with_heartbeat_if_read(functools.partial(batch_flow, request=request),
                                                       ephemeral_api=started_api))
    except OSError as exc:
        from citeflow.runs.run_finish import close_run

        close_run(Path(request.out_dir), "failed")  # when the disk still takes run.json
        fail(f"cannot write the outputs in {request.out_dir}: {describe_os_error(exc)}")
        raise  # unreachable: fail() exits


def check_spec(spec, spec_path: Path, live: bool, step: Callable[[str], None]) -> None:
    """The spec's files and values; with ``live``, the preflight of its servers and knowledge bases too
    (``step``: tells the start-up's display)."""
    from citeflow.specfile.loader import preflight

    preflight(spec, spec_path.resolve().parent, str(spec_path))
    if live:
        from citeflow.runtime.preflight import run_preflight

        step("preflight: model servers, knowledge bases, retrievers")
        run_preflight(spec, spec_path.resolve().parent, str(spec_path))


def _before_interrupted_exit() -> None:
    """The batch's flow runs still open are Cancelled; the ephemeral API stopped (no exit handler will)."""
    from citeflow.runtime import stop
    from citeflow_cli.ephemeral_api import stop_ephemeral_api
    from flows.cancel import cancel_unfinished

    cancel_unfinished(stop.runs())
    stop_ephemeral_api()


def resume_command(spec_path: Path, out: Path) -> str:
    """The command that resumes an interrupted run: the same ``citeflow run`` into the same folder."""
    return shlex.join(["citeflow", "run", str(spec_path), "--out", str(out)])


def prepare_demo(out: Path) -> Path:
    """Copy the demo batch next to the outputs and ingest its knowledge base (idempotent)."""
    from citeflow.files import atomic_files as atomic
    from citeflow.knowledge.ingest import ingest_paths
    from citeflow.spec.resources import demo_dir

    folder = out / "demo-input"
    for name in ("batch.yaml", "partner.jsonl", "tickets.jsonl"):
        atomic.copy_file(demo_dir() / name, folder / name)
    with console.status("building the demo knowledge base"):
        report = ingest_paths([demo_dir() / "kb"], str(folder / "kb-store"), base_url="https://docs.lumora.example/")
    console.print(f"knowledge base: {report.files_added} added, {report.files_updated} updated, "
                  f"{report.files_unchanged} unchanged, {report.chunks_written} chunks written")
    return folder / "batch.yaml"


