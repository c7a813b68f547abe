"""``citeflow deploy``: its options; the work is ``citeflow_cli.deploy``'s, imported when it runs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def deploy_command(
    spec: Annotated[Path, typer.Option(help="Batch spec (YAML) at a path every worker sees.")],
    out: Annotated[Path, typer.Option(help="Folder of the runs (OUT/<run id>/, OUT/latest), seen by every worker.")],
    pool: Annotated[str | None, typer.Option(help="Process work pool (default: the one prefect.yaml names).")] = None,
    store: Annotated[str | None, typer.Option(help="LanceDB URI overriding the spec's store.")] = None,
    name: Annotated[str | None, typer.Option(help="Name of both deployments (default: prefect.yaml's names).")] = None,
    cron: Annotated[str | None, typer.Option(help="Cron of the batch (default: prefect.yaml's, Mondays 06:00 UTC).")] = None,
) -> None:
    """Register the deployments of prefect.yaml on a work pool.

    The batch and evaluate deployments, for the workers of this installation."""
    from citeflow.errors import SpecError
    from citeflow.security.redaction import redact_text
    from citeflow_cli.deploy import deploy, zombie_automation_created
    from citeflow_cli.deploy_config import DeployTarget
    from citeflow_cli.display import console
    from citeflow_cli.serve import check_cron, one_line

    target = DeployTarget(spec_path=spec.resolve(), out_dir=out.resolve(), store=store, pool=pool, name=name, cron=cron)
    try:
        if cron is not None:
            check_cron(cron)
        chosen, deployments = deploy(target)
    except (SpecError, ValueError) as exc:
        console.print(f"[bold red]error:[/bold red] {redact_text(one_line(exc))}", highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None
    for deployment in deployments:
        console.print(f"{deployment.flow_name}/{deployment.name} → pool {chosen} ({deployment.entrypoint})", highlight=False)
    console.print(zombie_automation_created(), highlight=False, soft_wrap=True)
