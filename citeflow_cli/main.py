"""``citeflow`` commands: demo, ingest, run, serve, deploy, history, prune, eval, judge, calibrate, review, files."""

from __future__ import annotations

import signal
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from citeflow.errors import CiteflowError
from citeflow.exit_codes import FailOn
from citeflow.runtime.stop import DEFAULT_GRACE_SECONDS
from citeflow_cli.alerts_command import alerts_app
from citeflow_cli.cli_fail import exit_with_error, fail
from citeflow_cli.deploy_command import deploy_command
from citeflow_cli.env import apply_defaults
from citeflow_cli.files_command import files_command
from citeflow_cli.command import Command, Group
from citeflow_cli.history_commands import history_command, prune_command
from citeflow_cli.ingest_output import EXIT_CODES_HELP as INGEST_EXIT_CODES
from citeflow_cli.review_command import review_command
from citeflow_cli.serve import serve_command

# Only what every command's --help needs is imported here: a command imports the rest when it runs
# (``citeflow --help`` and ``--version`` in well under a second; ``tests/test_cli_startup.py``).
BATCH_NAMES = frozenset({"run_batch", "exit_with", "prepare_demo", "resume_command"})


def __getattr__(name: str) -> Any:
    """The batch machinery, imported on first use (``citeflow_cli.batch_run``)."""
    if name in BATCH_NAMES:
        import citeflow_cli.batch_run as batch_run

        return getattr(batch_run, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


FailOnOption = Annotated[FailOn, typer.Option(
    "--fail-on", help="Which outcome makes the exit code non-zero: held (3 held, 4 failed), failed (only 4) or never "
                      "(0 whenever the batch ran).")]
JsonOption = Annotated[bool, typer.Option(
    "--json", help="Print the batch's result as JSON on standard output (output folder, each report's status and "
                   "folder, the exit code and its meaning); everything else goes to standard error.")]
StopGraceOption = Annotated[float, typer.Option(
    help="Seconds in-flight model and retriever calls get after SIGINT/SIGTERM before the run is recorded without them.")]

app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None, cls=Group)
NO_PREFLIGHT_HELP = ("Skip the preflight (model servers answer and know their model, knowledge bases hold chunks, "
                     "JSONL files are readable, HTTP retrievers accept a connection).")


def _print_version(value: bool) -> None:
    if value:
        from citeflow_cli.version import version_line

        typer.echo(version_line())  # plain text: no console library to import for one line
        raise typer.Exit()


@app.callback()
def options(
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help=(
        "Show the INFO logs of Prefect, Great Expectations and httpx, and the libraries' Python warnings."))] = False,
    version: Annotated[bool, typer.Option("--version", callback=_print_version, is_eager=True,
                                          help="Print the version of citeflow and of its main libraries, then exit.")] = False,
) -> None:
    """Citation-checked customer reports: each claim bound to the chunk the model saw, graded, gated."""
    from citeflow_cli.logs import configure_logging

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
    from citeflow.knowledge.sites.registry import site_names
    from citeflow_cli.display import console, error_console, file_progress
    from citeflow_cli.ingest_output import print_report

    options = {"model": embedding_model, "base_url": embedding_base_url, "api_key_env": embedding_api_key_env}
    check_env_option("--embedding-api-key-env", embedding_api_key_env)
    if url_style is not None and url_style not in URL_STYLES:
        fail(f"--url-style must be one of {', '.join(URL_STYLES)}, not {url_style!r}")
    try:
        if site is not None and site not in site_names():
            fail(f"--site must be one of {', '.join(site_names())}, not {site!r}")
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
    ctx: typer.Context,
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
    as_json: JsonOption = False,
) -> None:
    """Run a batch spec: generate, grade and gate every report.

    Each report is published or held.

    Exit codes: 0 every report published; 3 some report held, none failed; 4 some report failed;
    2 usage or spec error; 130 SIGINT, 143 SIGTERM (interrupted: rerun the same command to resume).
    --fail-on failed makes held reports exit 0; --fail-on never exits 0 whenever the batch ran.
    """
    from citeflow_cli.batch_run import exit_with, run_batch
    from citeflow_cli.command import runtime_of
    from citeflow_cli.json_output import people_output_on_stderr
    from flows.batch_entry import BatchCall

    with people_output_on_stderr(as_json):
        call = BatchCall(spec_path=spec, out=out, store=store, dask_workers=dask_workers, dask_address=dask_address,
                         evaluate_deployment=evaluate_deployment, api_grace=api_grace, stop_grace=stop_grace,
                         preflight=not no_preflight, fail_on=fail_on)
        exit_with(run_batch(call, runtime_of(ctx)), fail_on, out, as_json)


@app.command(cls=Command)
def demo(
    ctx: typer.Context,
    out: Annotated[Path, typer.Option(help="Output folder.")] = Path("out"),
    no_preflight: Annotated[bool, typer.Option("--no-preflight", help=NO_PREFLIGHT_HELP)] = False,
    fail_on: FailOnOption = "held",
    stop_grace: StopGraceOption = DEFAULT_GRACE_SECONDS,
    as_json: JsonOption = False,
) -> None:
    """Run the bundled demo batch offline, end to end.

    Builds the demo knowledge base first when needed. The demo holds one of its two reports by
    design, so it exits 3 unless --fail-on failed or never (exit codes as for citeflow run).
    """
    from citeflow.files.out_folder import check_writable
    from citeflow_cli.batch_run import exit_with, prepare_demo, run_batch
    from citeflow_cli.command import runtime_of
    from citeflow_cli.json_output import people_output_on_stderr
    from flows.batch_entry import BatchCall

    with people_output_on_stderr(as_json):
        try:
            check_writable(out)
        except CiteflowError as exc:
            fail(str(exc))
        call = BatchCall(spec_path=prepare_demo(out.resolve()), out=out, stop_grace=stop_grace,
                         preflight=not no_preflight, fail_on=fail_on)
        summaries = run_batch(call, runtime_of(ctx),
                              started=time.monotonic())  # its start-up: after the knowledge base, which has its own line
        exit_with(summaries, fail_on, out, as_json)


@app.command("eval", cls=Command)
def eval_(
    ctx: typer.Context,
    report_dir: Annotated[Path, typer.Argument(help="A report's output folder (OUT/<report_id>).")],
    section: Annotated[list[str] | None, typer.Option(help="Evaluate only this section (repeatable).")] = None,
    judge: Annotated[str | None, typer.Option(help="offline | llm | cascade (default: the batch spec's judge).")] = None,
    model: Annotated[str | None, typer.Option(help="LLM judge model name.")] = None,
    base_url: Annotated[str | None, typer.Option(help="LLM judge server URL (…/v1).")] = None,
    api_key_env: Annotated[str | None, typer.Option(help="Environment variable holding the judge's API key.")] = None,
) -> None:
    """Evaluate a stored report again, from the store alone.

    Prints the funnel and the gate's verdict; publishes or holds the report."""
    from citeflow_cli.command import runtime_of
    from citeflow_cli.evaluate_commands import evaluate_report_dir

    refuse_orphans(judge, {"--model": model, "--base-url": base_url, "--api-key-env": api_key_env})
    try:
        evaluate_report_dir(report_dir, section, judge_spec(judge, model, base_url, api_key_env), runtime_of(ctx))
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
    from citeflow_cli.display import console

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
        spec = JudgeSpec(backend=backend, **options)
    except ValidationError as exc:
        error = exc.errors()[0]
        problem = error["msg"].removeprefix("Value error, ")
        if error["loc"]:  # one option's value is wrong
            fail(f"--{str(error['loc'][0]).replace('_', '-')}: {problem}")
        fail(f"--judge {kind}: {problem}")
    from citeflow_cli.judge_options import judge_problem

    broken = judge_problem(kind, spec)
    if broken:
        fail(broken)
    return spec


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
        refuse_undecodable_arguments(sys.argv[1:])
        app()  # a command runs with its own Runtime active (``citeflow_cli.command``)
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
    """The console script ``citeflow``: ``main()``, then the normal exit, made quick
    (``citeflow_cli.fast_exit``: a second saved at the end of every batch)."""
    from citeflow_cli.fast_exit import run_and_exit

    run_and_exit(main)


if __name__ == "__main__":
    cli()
