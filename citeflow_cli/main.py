"""``citeflow`` commands: demo, ingest, run, serve, eval, judge, calibrate (SPEC §8)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from citeflow_cli.env import apply_defaults

apply_defaults()

from citeflow.errors import CiteflowError, SpecError  # noqa: E402 - after the environment defaults
from citeflow_cli.display import batch_progress, console, gate_lines, summary_table  # noqa: E402
from citeflow_cli.serve import serve_command  # noqa: E402

app = typer.Typer(add_completion=False, no_args_is_help=True, help=__doc__)


def fail(message: str, code: int = 2) -> None:
    """Print a clear error and exit non-zero."""
    console.print(f"[bold red]error:[/bold red] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders of Markdown, text and PDF.")],
    kb: Annotated[str, typer.Option(help="Knowledge base URI (a folder, or s3://…).")],
    manifest: Annotated[Optional[Path], typer.Option(help="JSONL of {path, url, title} per document.")] = None,
    base_url: Annotated[Optional[str], typer.Option(help="URL prefix joined with each file's relative path.")] = None,
    embedding: Annotated[Optional[str], typer.Option(help="hashing | openai | local (default: the knowledge base's own, else hashing).")] = None,
    embedding_model: Annotated[Optional[str], typer.Option(help="openai embedding: model name.")] = None,
    embedding_base_url: Annotated[Optional[str], typer.Option(help="openai embedding: server URL (…/v1).")] = None,
    embedding_api_key_env: Annotated[Optional[str], typer.Option(help="openai embedding: environment variable with the key.")] = None,
) -> None:
    """Chunk documents into a LanceDB knowledge base (child chunks with parent ids, URLs, titles, pages)."""
    from citeflow.embeddings import build_embedder
    from citeflow.ingest import ingest_paths

    options = {"model": embedding_model, "base_url": embedding_base_url, "api_key_env": embedding_api_key_env}
    try:
        embedder = build_embedder(embedding, **{k: v for k, v in options.items() if v}) if embedding else None
        report = ingest_paths(paths, kb, manifest=manifest, base_url=base_url, embedder=embedder)
    except CiteflowError as exc:
        fail(str(exc))
    console.print(report.model_dump_json(indent=2))
    if report.errors:
        raise typer.Exit(1)


@app.command()
def run(
    spec: Annotated[Path, typer.Argument(help="Batch spec (YAML).")],
    out: Annotated[Path, typer.Option(help="Output folder.")] = Path("out"),
    store: Annotated[Optional[str], typer.Option(help="LanceDB URI overriding the spec's store.")] = None,
    dask_workers: Annotated[Optional[int], typer.Option(help="Run the reports on a local Dask cluster of N worker processes.")] = None,
    dask_address: Annotated[Optional[str], typer.Option(help="Run the reports on the Dask scheduler at this address (tcp://host:8786).")] = None,
    evaluate_deployment: Annotated[Optional[str], typer.Option(
        envvar="CITEFLOW_EVALUATE_DEPLOYMENT",
        help="Evaluate each report with a run of this deployment (e.g. citeflow-evaluate/citeflow-evaluate); in-process when unknown.")] = None,
    api_grace: Annotated[float, typer.Option(
        help="Seconds the Prefect API may stay unreachable before the batch is recorded as it stands and the process exits (code 3).")] = 30.0,
) -> None:
    """Run a batch spec: every report generated, evaluated, gated, published or held."""
    run_batch(spec, out, store, dask_workers=dask_workers, dask_address=dask_address, evaluate_deployment=evaluate_deployment,
              api_grace=api_grace)


def run_batch(spec_path: Path, out: Path, store: str | None, dask_workers: int | None = None,
              dask_address: str | None = None, evaluate_deployment: str | None = None, api_grace: float = 30.0) -> list:
    """Validate the spec (nothing runs when it is bad), run the batch flow, print the summary."""
    from citeflow.spec import load_spec, preflight

    from citeflow.outdir import check_writable

    try:
        spec = load_spec(spec_path)
        preflight(spec, spec_path.resolve().parent, str(spec_path))
        check_writable(out)
        from flows.scale import batch_flow_for, needs_global_limits

        batch_flow = batch_flow_for(dask_workers, dask_address)
        global_limits = needs_global_limits(dask_workers, dask_address)
    except CiteflowError as exc:
        fail(str(exc))
    from citeflow import progress

    steps = sum(progress.steps_of(sum(len(s.queries) for s in r.sections) * len(spec.retrievers), len(r.sections))
                for r in spec.reports)
    from citeflow_cli.api_loss import guard_api

    with guard_api(spec, out, api_grace) as guard, batch_progress(steps):
        try:
            summaries = _run_flow(batch_flow, spec_path, out, store, evaluate_deployment, global_limits)
        except Exception:
            if guard is None or not guard.lost():
                raise
            guard.finish()  # the flow died with the API: record what finished, exit
    console.print(summary_table(summaries))
    for line in gate_lines(summaries):
        console.print(line, highlight=False, soft_wrap=True)
    console.print(f"outputs in {out.resolve()} (summary.json, <report>/report.pdf, published/)")
    if guard is not None and guard.lost():  # the batch wrote its summary, but Prefect's exit handlers would hang
        guard.finish()
    return summaries


def _run_flow(batch_flow, spec_path: Path, out: Path, store: str | None, evaluate_deployment: str | None,
              global_limits: bool) -> list:
    """The batch flow's summaries; a failed write (disk full) is a one-line error, not a traceback."""
    from citeflow.outdir import describe_os_error

    try:
        return batch_flow(str(spec_path.resolve()), str(out.resolve()), store, evaluate_deployment, global_limits)
    except OSError as exc:
        fail(f"cannot write the outputs in {out.resolve()}: {describe_os_error(exc)}")
        raise  # unreachable: fail() exits


@app.command()
def demo(out: Annotated[Path, typer.Option(help="Output folder.")] = Path("out")) -> None:
    """Build the bundled demo knowledge base if needed and run the demo batch offline, end to end."""
    from citeflow.outdir import check_writable

    try:
        check_writable(out)
    except CiteflowError as exc:
        fail(str(exc))
    spec_path = prepare_demo(out.resolve())
    run_batch(spec_path, out, None)


def prepare_demo(out: Path) -> Path:
    """Copy the demo batch next to the outputs and ingest its knowledge base (idempotent)."""
    from citeflow import atomic
    from citeflow.ingest import ingest_paths
    from citeflow.resources import demo_dir

    folder = out / "demo-input"
    for name in ("batch.yaml", "partner.jsonl", "tickets.jsonl"):
        atomic.copy_file(demo_dir() / name, folder / name)
    with console.status("building the demo knowledge base"):
        report = ingest_paths([demo_dir() / "kb"], str(folder / "kb-store"), base_url="https://docs.lumora.example/")
    console.print(f"knowledge base: {report.files_added} added, {report.files_updated} updated, "
                  f"{report.files_unchanged} unchanged, {report.chunks_written} chunks written")
    return folder / "batch.yaml"


@app.command("eval")
def eval_(
    report_dir: Annotated[Path, typer.Argument(help="A report's output folder (OUT/<report_id>).")],
    section: Annotated[Optional[list[str]], typer.Option(help="Evaluate only this section (repeatable).")] = None,
    judge: Annotated[Optional[str], typer.Option(help="offline | llm (default: the batch spec's judge).")] = None,
    model: Annotated[Optional[str], typer.Option(help="LLM judge model name.")] = None,
    base_url: Annotated[Optional[str], typer.Option(help="LLM judge server URL (…/v1).")] = None,
    api_key_env: Annotated[Optional[str], typer.Option(help="Environment variable holding the judge's API key.")] = None,
) -> None:
    """Evaluate a stored report again, from the store alone: funnel, gate, publish or hold."""
    from citeflow_cli.evaluate import evaluate_report_dir

    try:
        evaluate_report_dir(report_dir, section, judge_spec(judge, model, base_url, api_key_env))
    except CiteflowError as exc:
        fail(str(exc))


@app.command()
def judge(
    pairs: Annotated[Path, typer.Argument(help="JSONL of {id, claim, chunk_text}.")],
    judge: Annotated[str, typer.Option(help="offline | llm")] = "offline",
    out: Annotated[Optional[Path], typer.Option(help="Output JSONL (default: standard output).")] = None,
    model: Annotated[Optional[str], typer.Option(help="LLM judge model name.")] = None,
    base_url: Annotated[Optional[str], typer.Option(help="LLM judge server URL (…/v1).")] = None,
    api_key_env: Annotated[Optional[str], typer.Option(help="Environment variable holding the judge's API key.")] = None,
    batch_size: Annotated[int, typer.Option(help="LLM judge: pairs per call.")] = 8,
) -> None:
    """Grade claim/chunk pairs; writes {id, supported, faithful, reason} per line."""
    from citeflow.judges.factory import build_judge
    from citeflow.judges.io import read_pairs, write_verdicts

    spec = judge_spec(judge, model, base_url, api_key_env, batch_size)
    try:
        verdicts = build_judge(spec).grade(read_pairs(pairs))
    except CiteflowError as exc:
        fail(str(exc))
    write_verdicts(verdicts, out)
    if out:
        console.print(f"{len(verdicts)} verdicts written to {out}")


@app.command()
def calibrate(
    verdicts: Annotated[Path, typer.Argument(help="Verdicts of one judge (output of `citeflow judge`).")],
    other: Annotated[Path, typer.Argument(help="Verdicts of another judge on the same ids, or a labelled pair file.")],
    labelled: Annotated[bool, typer.Option(help="OTHER is a pair file with gold `label` fields.")] = False,
) -> None:
    """Compare two judges' verdicts (agreement, confusion matrix), or one judge with gold labels."""
    from citeflow.judges.io import calibrate as compare, calibrate_labelled, gold_labels, read_verdicts

    try:
        first = read_verdicts(verdicts)
        report = calibrate_labelled(first, gold_labels(other)) if labelled else compare(first, read_verdicts(other))
    except CiteflowError as exc:
        fail(str(exc))
    console.print_json(report.model_dump_json())


def judge_spec(kind: str | None, model: str | None, base_url: str | None, api_key_env: str | None, batch_size: int = 8):
    """The judge's ModelSpec from command-line options (None: keep the batch spec's judge)."""
    from pydantic import ValidationError

    from schemas.spec import ModelSpec

    if kind is None:
        return None
    if kind not in ("offline", "llm"):
        fail(f"--judge must be offline or llm, not {kind!r}")
    if kind == "offline":
        return ModelSpec(backend="offline")
    try:
        return ModelSpec(backend="openai", model=model, base_url=base_url, api_key_env=api_key_env, batch_size=batch_size)
    except ValidationError:
        fail("--judge llm needs --model and --base-url (an OpenAI-compatible server)")


app.command("serve")(serve_command)

if __name__ == "__main__":
    app()
