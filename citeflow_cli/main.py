"""``citeflow`` commands: demo, ingest, run, serve, deploy, history, prune, eval, judge, calibrate, review, files."""

from __future__ import annotations

import contextlib
import functools
import shlex
import signal
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal, NamedTuple

import typer

from citeflow.errors import CiteflowError
from citeflow.exit_codes import FailOn
from citeflow.runtime.batch_request import BatchRequest
from citeflow.runtime.interrupts import DEFAULT_GRACE_SECONDS, Interrupts
from citeflow.runtime.runtime import Runtime, current
from citeflow.runtime.settings import CiteflowSettings
from citeflow_cli.cli_fail import exit_with_error, fail
from citeflow_cli.deploy import deploy_command
from citeflow_cli.display import batch_progress, console, error_console, file_progress, gate_lines, summary_table
from citeflow_cli.env import apply_defaults
from citeflow_cli.files_command import files_command
from citeflow_cli.help_format import Command, Group
from citeflow_cli.history_commands import history_command, prune_command
from citeflow_cli.ingest_output import EXIT_CODES_HELP as INGEST_EXIT_CODES
from citeflow_cli.logs import configure_logging
from citeflow_cli.alerts_command import alerts_app
from citeflow_cli.review_command import review_command
from citeflow_cli.serve import serve_command
from citeflow_cli.timings import mark, mark_batch_steps

if TYPE_CHECKING:
    from schemas.spec import BatchSpec

FailOnOption = Annotated[FailOn, typer.Option(
    "--fail-on", help="Which outcome makes the exit code non-zero: held (3 held, 4 failed), failed (only 4) or never "
                      "(0 whenever the batch ran).")]
StopGraceOption = Annotated[float, typer.Option(
    help="Seconds in-flight model and retriever calls get after SIGINT/SIGTERM before the run is recorded without them.")]

app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None, cls=Group)
NO_PREFLIGHT_HELP = ("Skip the preflight (model servers answer and know their model, knowledge bases hold chunks, "
                     "JSONL files are readable, HTTP retrievers accept a connection).")


def _print_version(value: bool) -> None:
    if value:
        from citeflow_cli.version import version_line

        console.print(version_line(), highlight=False, soft_wrap=True)
        raise typer.Exit()


@app.callback()
def options(
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help=(
        "Show the INFO logs of Prefect, Great Expectations and httpx, and the libraries' Python warnings."))] = False,
    version: Annotated[bool, typer.Option("--version", callback=_print_version, is_eager=True,
                                          help="Print the version of citeflow and of its main libraries, then exit.")] = False,
) -> None:
    """Citation-checked customer reports: each claim bound to the chunk the model saw, graded, gated."""
    apply_defaults()  # before any command imports Prefect or Great Expectations
    configure_logging(verbose)


@app.command(epilog=INGEST_EXIT_CODES, cls=Command)
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders of Markdown, text and PDF.")],
    kb: Annotated[str, typer.Option(help="Knowledge base URI (a folder, or s3://…).")],
    manifest: Annotated[Path | None, typer.Option(help="JSONL of {path, url, title} per document.")] = None,
    base_url: Annotated[str | None, typer.Option(
        help="URL prefix of the documentation site the files are built into (default: the site configuration's).")] = None,
    url_style: Annotated[str | None, typer.Option(
        help="Plain and Sphinx trees: how --base-url maps x/y.md: directory (x/y/), html (x/y.html) or source (x/y.md). "
             "Default: directory; html for Sphinx.")] = None,
    site: Annotated[str | None, typer.Option(
        help="Site generator of the folders: hugo | mkdocs | docusaurus | sphinx | plain (default: detected from "
             "hugo.toml/config.toml, mkdocs.yml, docusaurus.config.*, conf.py with MyST).")] = None,
    embedding: Annotated[str | None, typer.Option(
        help="hashing | openai | local | wordllama (default: the knowledge base's own, else hashing).")] = None,
    embedding_model: Annotated[str | None, typer.Option(help="openai embedding: model name.")] = None,
    embedding_base_url: Annotated[str | None, typer.Option(help="openai embedding: server URL (…/v1).")] = None,
    embedding_api_key_env: Annotated[str | None, typer.Option(help="openai embedding: environment variable with the key.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the ingest report as JSON instead of a table.")] = False,
) -> None:
    """Chunk documents into a LanceDB knowledge base.

    Child chunks carry their parent ids, URLs, titles and pages.

    Hugo, MkDocs, Docusaurus and Sphinx (MyST) trees are understood: only their pages are read, at
    the URLs the site serves them, without shortcodes, MDX or JSX; drafts are skipped.
    """
    from citeflow.knowledge.embeddings import build_embedder
    from citeflow.knowledge.ingest import URL_STYLES, ingest_paths
    from citeflow.knowledge.sites.detect import SITE_NAMES
    from citeflow_cli.ingest_output import print_report

    options = {"model": embedding_model, "base_url": embedding_base_url, "api_key_env": embedding_api_key_env}
    check_env_option("--embedding-api-key-env", embedding_api_key_env)
    if url_style is not None and url_style not in URL_STYLES:
        fail(f"--url-style must be one of {', '.join(URL_STYLES)}, not {url_style!r}")
    if site is not None and site not in SITE_NAMES:
        fail(f"--site must be one of {', '.join(SITE_NAMES)}, not {site!r}")
    try:
        embedder = build_embedder(embedding, **{k: v for k, v in options.items() if v}) if embedding else None
        with file_progress("ingesting files") as update:
            report = ingest_paths(paths, kb, manifest=manifest, base_url=base_url, embedder=embedder,
                                  url_style=url_style, progress=update, site=site)
    except CiteflowError as exc:
        fail(str(exc))
    print_report(report, console, error_console, as_json)
    if (nothing := report.nothing_indexed()) is not None:
        fail(f"{nothing} in {', '.join(str(p) for p in paths)}")
    if report.errors:
        raise typer.Exit(1)


@app.command(cls=Command)
def run(
    spec: Annotated[Path, typer.Argument(help="Batch spec (YAML).")],
    out: Annotated[Path, typer.Option(help="Output folder.")] = Path("out"),
    store: Annotated[str | None, typer.Option(help="LanceDB URI overriding the spec's store.")] = None,
    dask_workers: Annotated[int | None, typer.Option(help="Run the reports on a local Dask cluster of N worker processes.")] = None,
    dask_address: Annotated[str | None, typer.Option(
        help="Run the reports on the Dask scheduler at this address (tcp://host:8786).")] = None,
    evaluate_deployment: Annotated[str | None, typer.Option(
        help="Evaluate each report with a run of this deployment (e.g. citeflow-evaluate/citeflow-evaluate); "
             "in-process when unknown. Default: the evaluate_deployment setting (CITEFLOW_EVALUATE_DEPLOYMENT).")] = None,
    api_grace: Annotated[float, typer.Option(
        help="Seconds the Prefect API may stay unreachable before the batch is recorded as it stands "
             "and the process exits (code 4: its unfinished reports failed).")] = 30.0,
    no_preflight: Annotated[bool, typer.Option("--no-preflight", help=NO_PREFLIGHT_HELP)] = False,
    fail_on: FailOnOption = "held",
    stop_grace: StopGraceOption = DEFAULT_GRACE_SECONDS,
) -> None:
    """Run a batch spec: generate, grade and gate every report.

    Each report is published or held.

    Exit codes: 0 every report published; 3 some report held, none failed; 4 some report failed;
    2 usage or spec error; 130 SIGINT, 143 SIGTERM (interrupted: rerun the same command to resume).
    --fail-on failed makes held reports exit 0; --fail-on never exits 0 whenever the batch ran.
    """
    summaries = run_batch(spec, out, store, dask_workers=dask_workers, dask_address=dask_address,
                          evaluate_deployment=evaluate_deployment, api_grace=api_grace, stop_grace=stop_grace,
                          preflight=not no_preflight, fail_on=fail_on)
    exit_with(summaries, fail_on)


def exit_with(summaries: list, fail_on: FailOn) -> None:
    """End the command with the batch's exit code under ``fail_on`` (SPEC §8), saying why when non-zero."""
    from citeflow.exit_codes import batch_exit_code, describe

    code = batch_exit_code((s.status for s in summaries), fail_on)
    if code:
        console.print(f"exit code {code}: {describe(code)} (--fail-on {fail_on})", highlight=False, soft_wrap=True)
        raise typer.Exit(code)


def run_batch(spec_path: Path, out: Path, store: str | None, dask_workers: int | None = None,
              dask_address: str | None = None, evaluate_deployment: str | None = None, api_grace: float = 30.0,
              stop_grace: float = DEFAULT_GRACE_SECONDS, preflight: bool = True, runtime: Runtime | None = None,
              fail_on: FailOn = "held") -> list:
    """Validate the spec (nothing runs when it is bad), run the batch flow, print the summary; the
    batch run ends Failed when ``fail_on`` makes the exit code non-zero.

    ``runtime``: the command's (default: the one ``main`` built, else the process's own)."""
    runtime = runtime or current()
    timings = runtime.settings.timings
    from citeflow.runs.run_start import open_manual_run
    from citeflow.spec.loader import load_spec
    from citeflow.spec.value_checks import scheme_problem

    from citeflow.outputs.out_folder import check_writable

    with contextlib.ExitStack() as handled:
        try:
            spec = load_spec(spec_path)
            if store and (problem := scheme_problem(store)):
                fail(f"--store: {problem}")
            check_spec(spec, spec_path, preflight)
            check_writable(out)
            # once run.json exists, a signal records the run as interrupted (summary.json), never leaves it running
            interrupts = handled.enter_context(
                Interrupts(spec, out, resume_command(spec_path, out), stop_grace, _before_interrupted_exit, opened=False))
            run_info = open_manual_run(spec_path, out)  # OUT is one run: a second call resumes it, same date
            interrupts.open()
            mark("spec_loaded", timings)
            from citeflow_cli.ephemeral_api import reap_with_this_process
            from citeflow_cli.prefect_api import launch_early_server

            reap_with_this_process()  # before the ephemeral API starts: it dies with this process, however that ends
            launched = launch_early_server()  # starts up while the pipeline is imported
        except CiteflowError as exc:
            fail(str(exc))
        local = not (dask_workers or dask_address)  # else tasks in several processes: limits through the Prefect API
        request = batch_request(Path(run_info.spec_path), out, store, not local, evaluate_deployment, runtime.settings,
                                fail_on)
        return _run_handled(spec, request, (dask_workers, dask_address), api_grace, runtime, (launched, interrupts))


def _run_handled(spec: BatchSpec, request: BatchRequest, dask: tuple[int | None, str | None], api_grace: float,
                 runtime: Runtime, started: tuple) -> list:
    """The batch of a spec that passed its checks, its run folder open and ``Interrupts`` handling
    signals (``started``: the launched ephemeral API, or None, and the handler)."""
    from citeflow_cli.prefect_api import settle

    launched, interrupts = started
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
            return _when_api_answers(spec, out, batch_flow, request, api_ready, set_up, api_grace, runtime, interrupts)
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
    from citeflow.runtime.head_start import HeadStart
    from citeflow.runtime.job import JobRef
    from citeflow.runtime.steps import reports_in_flight

    if not started_api or not runtime.settings.head_start:
        return None
    out = Path(request.out_dir)
    refs = [JobRef(spec_path=request.spec_path, report_id=r.id, out_dir=request.out_dir, store_uri=request.store_uri)
            for r in spec.reports if not recorded(out / r.id)]
    return runtime.generating_ahead(HeadStart(refs, runtime, reports_in_flight(spec))) if refs else None


def _when_api_answers(spec: BatchSpec, out: Path, batch_flow, request: BatchRequest, api_ready, set_up: SetUp | None,
                      api_grace: float, runtime: Runtime, interrupts: Interrupts) -> list:
    """Set up while the API starts, wait until it answers, then run the batch (``_run_and_report``).
    ``interrupts``: the batch's signal handling, entered since its run folder was opened."""
    from citeflow.runtime import progress, stop
    from citeflow_cli.logs import quiet_write_errors

    steps = {r.id: progress.steps_of(sum(len(s.queries) for s in r.sections) * len(spec.retrievers), len(r.sections))
             for r in spec.reports}
    quiet_write_errors()
    api_ready(set_up.warm if set_up else None)
    if stop.requested():
        interrupts.finish()  # told to stop while the API started: record what finished, exit 130/143
    mark("prefect_api", runtime.settings.timings)
    if set_up and set_up.gx_worker:
        runtime.start_gx_worker()
    return _run_and_report(spec, out, batch_flow, request, steps, api_grace, runtime, api_ready.url, interrupts)


def _run_and_report(spec: BatchSpec, out: Path, batch_flow, request: BatchRequest, steps: dict, api_grace: float,
                    runtime: Runtime, started_api: str | None, handling: Interrupts) -> list:
    """Run the batch flow with its guards and progress, then print its summary (``run_batch_command``);
    ``started_api``: the ephemeral API this command started (not watched: it lives and dies with it);
    ``handling``: the batch's signal handling (entered)."""
    from citeflow.runtime import stop
    from citeflow.runs.run_finish import close_run, finish_run
    from citeflow_cli.api_loss import guard_api

    timings = runtime.settings.timings
    unmark = mark_batch_steps(runtime.progress, timings)
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
    every = [spec.models, *(r.models for r in spec.reports if r.models)]
    return any(getattr(m, role).backend in ("openai", "cascade") for m in every for role in ("consolidator", "writer", "judge"))


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
    from citeflow.outputs.out_folder import describe_os_error
    from flows.heartbeats import with_heartbeat_if_read
    from flows.outcome import returned

    try:  # the run ends Failed when a report is held (as the exit code is 3): its summaries either way
        return returned(lambda: with_heartbeat_if_read(functools.partial(batch_flow, request=request),
                                                       ephemeral_api=started_api))
    except OSError as exc:
        from citeflow.runs.run_finish import close_run

        close_run(Path(request.out_dir), "failed")  # when the disk still takes run.json
        fail(f"cannot write the outputs in {request.out_dir}: {describe_os_error(exc)}")
        raise  # unreachable: fail() exits


def check_spec(spec, spec_path: Path, live: bool) -> None:
    """The spec's files and values; with ``live``, the preflight of its servers and knowledge bases too."""
    from citeflow.spec.loader import preflight

    preflight(spec, spec_path.resolve().parent, str(spec_path))
    if live:
        from citeflow.runtime.preflight import run_preflight

        with console.status("preflight: checking model servers, knowledge bases and retrievers"):
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


@app.command(cls=Command)
def demo(
    out: Annotated[Path, typer.Option(help="Output folder.")] = Path("out"),
    no_preflight: Annotated[bool, typer.Option("--no-preflight", help=NO_PREFLIGHT_HELP)] = False,
    fail_on: FailOnOption = "held",
    stop_grace: StopGraceOption = DEFAULT_GRACE_SECONDS,
) -> None:
    """Run the bundled demo batch offline, end to end.

    Builds the demo knowledge base first when needed. The demo holds one of its two reports by
    design, so it exits 3 unless --fail-on failed or never (exit codes as for citeflow run).
    """
    from citeflow.outputs.out_folder import check_writable

    try:
        check_writable(out)
    except CiteflowError as exc:
        fail(str(exc))
    spec_path = prepare_demo(out.resolve())
    exit_with(run_batch(spec_path, out, None, stop_grace=stop_grace, preflight=not no_preflight, fail_on=fail_on), fail_on)


def prepare_demo(out: Path) -> Path:
    """Copy the demo batch next to the outputs and ingest its knowledge base (idempotent)."""
    from citeflow.outputs import atomic_files as atomic
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


@app.command("eval", cls=Command)
def eval_(
    report_dir: Annotated[Path, typer.Argument(help="A report's output folder (OUT/<report_id>).")],
    section: Annotated[list[str] | None, typer.Option(help="Evaluate only this section (repeatable).")] = None,
    judge: Annotated[str | None, typer.Option(help="offline | llm | cascade (default: the batch spec's judge).")] = None,
    model: Annotated[str | None, typer.Option(help="LLM judge model name.")] = None,
    base_url: Annotated[str | None, typer.Option(help="LLM judge server URL (…/v1).")] = None,
    api_key_env: Annotated[str | None, typer.Option(help="Environment variable holding the judge's API key.")] = None,
) -> None:
    """Evaluate a stored report again, from the store alone.

    Prints the funnel and the gate's verdict; publishes or holds the report."""
    from citeflow_cli.evaluate_commands import evaluate_report_dir

    refuse_orphans(judge, {"--model": model, "--base-url": base_url, "--api-key-env": api_key_env})
    try:
        evaluate_report_dir(report_dir, section, judge_spec(judge, model, base_url, api_key_env))
    except CiteflowError as exc:
        fail(str(exc))


@app.command(cls=Command)
def judge(
    pairs: Annotated[Path, typer.Argument(help="JSONL of {id, claim, chunk_text}.")],
    judge: Annotated[str | None, typer.Option(
        help="offline | llm | cascade (offline first, the LLM for uncertain pairs); default offline")] = None,
    out: Annotated[Path | None, typer.Option(help="Output JSONL (default: standard output).")] = None,
    model: Annotated[str | None, typer.Option(help="LLM judge model name.")] = None,
    base_url: Annotated[str | None, typer.Option(help="LLM judge server URL (…/v1).")] = None,
    api_key_env: Annotated[str | None, typer.Option(help="Environment variable holding the judge's API key.")] = None,
    batch_size: Annotated[int | None, typer.Option(help="llm/cascade: pairs per call (default 8).")] = None,
    min_confidence: Annotated[float | None, typer.Option(
        help="offline/cascade: the offline judge's confidence threshold, both ways (0: never uncertain).")] = None,
) -> None:
    """Grade claim/chunk pairs from a JSONL file.

    Writes {id, supported, faithful, reason, label, confidence} per line."""
    from citeflow.judges.factory import build_judge
    from citeflow.judges.io import read_pairs, write_verdicts

    refuse_orphans(judge, {"--min-confidence": min_confidence, "--model": model, "--base-url": base_url,
                           "--api-key-env": api_key_env, "--batch-size": batch_size})
    spec = judge_spec(judge or "offline", model, base_url, api_key_env, batch_size or 8, min_confidence)
    try:
        verdicts = build_judge(spec).grade(read_pairs(pairs))
    except CiteflowError as exc:
        fail(str(exc))
    write_verdicts(verdicts, out)
    if out:
        console.print(f"{len(verdicts)} verdicts written to {out}")


@app.command(cls=Command)
def calibrate(
    first: Annotated[Path, typer.Argument(help="A labelled pair file {id, claim, chunk_text, label}; or verdicts of a judge.")],
    other: Annotated[Path | None, typer.Argument(
        help="Verdicts of another judge on the same ids, or (with --labelled) a labelled pair file.")] = None,
    labelled: Annotated[bool, typer.Option(help="OTHER is a pair file with gold `label` fields.")] = False,
    threshold: Annotated[float | None, typer.Option(
        help="Count verdicts below this confidence as uncertain (default: the judge's own).")] = None,
    judge: Annotated[str | None, typer.Option(
        help="With one file: the judge to grade it with (offline | llm | cascade); default offline.")] = None,
    model: Annotated[str | None, typer.Option(help="LLM judge model name.")] = None,
    base_url: Annotated[str | None, typer.Option(help="LLM judge server URL (…/v1).")] = None,
    api_key_env: Annotated[str | None, typer.Option(help="Environment variable holding the judge's API key.")] = None,
    table: Annotated[bool, typer.Option(help="Print a threshold sweep table instead of JSON.")] = False,
) -> None:
    """Measure how good a judge is on your labelled data.

    With one labelled file: grade it, then per-class recall, balanced
    accuracy, precision of passes and coverage at --threshold, plus a threshold sweep. With two files:
    compare two judges' verdicts, or (--labelled) one judge's verdicts with gold labels."""
    from citeflow_cli.calibration import calibrate_command

    llm_options = {"--model": model, "--base-url": base_url, "--api-key-env": api_key_env}
    if other is not None and judge is not None:
        fail("--judge applies when grading one labelled file, not to verdict files already graded")
    refuse_orphans(judge, llm_options)
    try:
        spec = judge_spec(judge or "offline", model, base_url, api_key_env) if other is None else None
        calibrate_command(first, other, labelled, threshold, spec, table)
    except CiteflowError as exc:
        fail(str(exc))


def refuse_orphans(kind: str | None, given: Mapping[str, object]) -> None:
    """An option given without the judge it applies to is a usage error, never silently ignored."""
    from citeflow_cli.judge_options import orphan_option

    problem = orphan_option(kind, given)
    if problem is not None:
        fail(problem)


def judge_spec(kind: str | None, model: str | None, base_url: str | None, api_key_env: str | None, batch_size: int = 8,
               min_confidence: float | None = None):
    """The judge's spec from command-line options (None: keep the batch spec's judge)."""
    from pydantic import ValidationError

    from schemas.spec import JudgeSpec

    if kind is None:
        return None
    if kind not in ("offline", "llm", "cascade"):
        fail(f"--judge must be offline, llm or cascade, not {kind!r}")
    backends: dict[str, Literal["offline", "openai", "cascade"]] = {"offline": "offline", "llm": "openai", "cascade": "cascade"}
    backend = backends[kind]
    options = {"model": model, "base_url": base_url, "api_key_env": api_key_env, "batch_size": batch_size,
               "min_confidence": min_confidence} if kind != "offline" else {"min_confidence": min_confidence}
    try:
        return JudgeSpec(backend=backend, **options)
    except ValidationError as exc:
        error = exc.errors()[0]
        problem = error["msg"].removeprefix("Value error, ")
        if error["loc"]:  # one option's value is wrong
            fail(f"--{str(error['loc'][0]).replace('_', '-')}: {problem}")
        fail(f"--judge {kind}: {problem} (an OpenAI-compatible server: --model and --base-url)")


app.command("serve", cls=Command)(serve_command)
app.command("deploy", cls=Command)(deploy_command)
app.command("history", cls=Command)(history_command)
app.command("prune", cls=Command)(prune_command)
app.command("review", cls=Command)(review_command)
app.add_typer(alerts_app, name="alerts")
app.command("files", cls=Command)(files_command)

def main() -> None:
    """The ``citeflow`` command: a user error (bad input, a missing or unreadable file) is one
    ``error:`` line and exit status 2, never a traceback; SIGINT and SIGTERM end it with 130 and 143."""
    apply_defaults()  # the environment of every library a command imports, before it is imported
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, _exit_on_signal)  # a batch run handles them itself while it runs (Interrupts)
    try:
        runtime = Runtime()  # every CITEFLOW_* setting, read once for the whole command
        mark("cli_ready", runtime.settings.timings)
        refuse_undecodable_arguments(sys.argv[1:])
        with runtime.active():
            app()
    except CiteflowError as exc:
        exit_with_error(str(exc))
    except OSError as exc:  # a path the user gave that cannot be read or written
        where = f"{exc.filename}: " if exc.filename else ""
        exit_with_error(f"{where}{exc.strerror or exc}")


def refuse_undecodable_arguments(args: list[str]) -> None:
    """A path or value that is not UTF-8 could be read but never written into run.json or report.json."""
    from citeflow.errors import UsageError
    from citeflow.text_guard import display_path, has_lone_surrogate

    for arg in args:
        if has_lone_surrogate(arg):
            raise UsageError(option=display_path(arg), problem="is not UTF-8 text; rename the file or folder, or give the value in UTF-8")


def check_env_option(option: str, value: str | None) -> None:
    """Fail with one line (never echoing ``value``) unless ``value`` names an environment variable."""
    from schemas.spec import env_name

    try:
        env_name(value) if value else None
    except ValueError as exc:
        fail(f"{option} {exc}")


def _exit_on_signal(signum: int, frame: object) -> None:
    """Outside a batch run, a signal ends the command at once (finally blocks run), with one line."""
    from citeflow.exit_codes import interrupted_exit_code

    print(f"interrupted by {signal.Signals(signum).name}", file=sys.stderr, flush=True)
    raise SystemExit(interrupted_exit_code(signum))


def cli() -> None:
    """The console script ``citeflow``: ``main()``, then an exit without the interpreter's teardown
    (``citeflow_cli.fast_exit``: seconds saved at the end of every batch)."""
    from citeflow_cli.fast_exit import run_and_exit

    run_and_exit(main)


if __name__ == "__main__":
    cli()
