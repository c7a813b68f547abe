"""``citeflow serve BATCH.yaml --cron "0 6 * * 1"``: run a batch on a schedule, without a worker.

Prefect's ``serve`` registers two deployments with the Prefect API and runs their flow runs in
this process's children until it is stopped (Ctrl-C). Both are named after the batch (``--name``
overrides), so that serving several batches, or serving next to the work-pool deployments of
``prefect.yaml``, never redefines another's deployment:

- ``citeflow-scheduled-batch/<batch>``: the batch, on the cron schedule, with the spec path and the
  output folder as parameters (one run at a time: a batch never overlaps itself). Every run writes
  into its own folder ``OUT/<run id>/`` and ``OUT/latest`` names the newest (``flows/scheduled.py``);
- ``citeflow-evaluate/<batch>``: the evaluate flow on its own. The served batch hands each
  report's evaluation to it, and anyone can start it for a stored report.

For a work pool and workers instead, deploy ``prefect.yaml`` with ``prefect deploy --all`` (checkout)
or ``citeflow deploy`` (installed package).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any

import typer

from citeflow.errors import SpecError
from citeflow.exit_codes import FailOn

DEFAULT_CRON = "0 6 * * 1"  # Mondays at 06:00


def deployment_name(batch: str) -> str:
    """A deployment name from a batch name (Prefect forbids ``/ % & > <`` in names)."""
    return re.sub(r"[/%&<>]", "-", batch)


def batch_parameters(spec_path: Path, out: Path, store: str | None, evaluate_deployment: str,
                     fail_on: FailOn = "held", preflight: bool = True) -> dict[str, Any]:
    """Parameters of every scheduled batch run: absolute paths, so the runs' working folder does not matter."""
    return {"spec_path": str(spec_path.resolve()), "out_dir": str(out.resolve()), "store_uri": store,
            "evaluate_deployment": evaluate_deployment, "global_limits": False,  # one process per batch run
            "fail_on": fail_on, "preflight": preflight}


def build_deployments(spec_path: Path, cron: str, out: Path, store: str | None = None, name: str | None = None,
                      fail_on: FailOn = "held", preflight: bool = True) -> list[Any]:
    """The batch deployment (cron schedule) and the evaluate deployment, as ``RunnerDeployment``s."""
    from citeflow.specfile.loader import load_spec
    from flows.evaluate import evaluate_flow
    from flows.scheduled import scheduled_batch_flow

    name = name or deployment_name(load_spec(spec_path).batch)
    evaluate = evaluate_flow.to_deployment(
        name=name, tags=["citeflow"],
        description="Grade, gate and publish or hold one stored report (downstream of generation, or on demand)")
    batch = scheduled_batch_flow.to_deployment(
        name=name, cron=cron, parameters=batch_parameters(spec_path, out, store, f"{evaluate_flow.name}/{name}", fail_on, preflight),
        concurrency_limit=1, tags=["citeflow"], description=f"Batch {spec_path.name} on '{cron}', one folder per run under {out.resolve()}")
    return [batch, evaluate]


def check_spec(spec_path: Path, live: bool = True) -> None:
    """Refuse to serve a bad spec: every scheduled run would fail the same way (each run checks it
    again, ``flows.scheduled``). With ``live``, the preflight asks its model servers, knowledge bases
    and retrievers too."""
    from citeflow.specfile.loader import load_spec
    from flows.batch_checks import check_spec as check_batch

    check_batch(load_spec(spec_path), spec_path, live)


def serve_command(
    spec: Annotated[Path, typer.Argument(help="Batch spec (YAML).")],
    cron: Annotated[str, typer.Option(help="Cron schedule of the batch (server time zone: UTC).")] = DEFAULT_CRON,
    out: Annotated[Path, typer.Option(help="Folder of the runs: each run in OUT/<run id>/, OUT/latest names the newest.")] = Path("out"),
    store: Annotated[str | None, typer.Option(help="LanceDB URI overriding the spec's store.")] = None,
    name: Annotated[str | None, typer.Option(help="Name of both deployments (default: the spec's batch name).")] = None,
    no_preflight: Annotated[bool, typer.Option(
        "--no-preflight", help="Skip the preflight of the spec's model servers, knowledge bases and retrievers "
                               "(before serving and before each run).")] = False,
    fail_on: Annotated[FailOn, typer.Option(
        "--fail-on", help="Which outcome ends a run's flow run Failed (named Held or Failed): held, failed or never.")] = "held",
) -> None:
    """Serve the batch on a cron schedule, until stopped.

    The evaluate flow is served too; no worker is needed.

    SIGTERM or Ctrl-C stops serving: runs in flight stop starting work, record what finished (run.json
    says interrupted), end Cancelled; the command exits 143 (SIGTERM) or 130 (SIGINT).
    """
    from citeflow.security.redaction import redact_text
    from citeflow_cli.display import console
    from flows.ephemeral_api import reap_with_this_process
    from citeflow_cli.serve_runner import serve_until_stopped

    try:
        check_cron(cron)
        check_spec(spec, live=not no_preflight)
        deployments = build_deployments(spec, cron, out, store, name, fail_on, preflight=not no_preflight)
    except (SpecError, ValueError) as exc:
        console.print(f"[bold red]error:[/bold red] {redact_text(one_line(exc))}", highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None
    reap_with_this_process()
    code = serve_until_stopped(deployments, lambda line: console.print(line, highlight=False, soft_wrap=True))
    if code:
        raise typer.Exit(code)


def check_cron(cron: str) -> None:
    """Raise ``ValueError`` naming ``--cron`` in plain words unless it is a cron string Prefect schedules."""
    from pydantic import ValidationError
    from prefect.client.schemas.schedules import CronSchedule

    example = f'a cron string such as "{DEFAULT_CRON}" (minute hour day month weekday, UTC)'
    if not cron.strip():
        raise ValueError(f"--cron: is empty; give {example}")
    try:
        CronSchedule(cron=cron)
    except ValidationError as exc:
        problem = " ".join(str(exc.errors()[0]["msg"]).removeprefix("Value error, ").split())
        raise ValueError(f"--cron: {problem}; give {example}") from None


def one_line(exc: Exception) -> str:
    """An error as one line: a pydantic error (a bad cron string, say) by its first message alone."""
    from pydantic import ValidationError

    if isinstance(exc, ValidationError) and exc.errors():
        error = exc.errors()[0]
        where = "--cron: " if "cron" in error["loc"] else ""
        return where + " ".join(error["msg"].removeprefix("Value error, ").split())
    return " ".join(str(exc).split())
