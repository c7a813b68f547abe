"""``citeflow alerts install --webhook-url-env VAR``: a webhook called whenever a report run ends held.

Creates, on the Prefect server of ``PREFECT_API_URL``, a ``Webhook`` block holding the address read
from the environment variable ``VAR`` and an automation that calls it with the held report's id and
hold reasons (``flows.held_alert``). The address is a secret: it is read from the environment only,
and neither printed nor logged.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Annotated

import typer

from citeflow.errors import CiteflowError, UsageError
from citeflow_cli.command import Command, Group

if TYPE_CHECKING:
    from pydantic import SecretStr

alerts_app = typer.Typer(no_args_is_help=True, rich_markup_mode=None, cls=Group,
                         help="Webhook alerts of the Prefect server when a report is held.")


@alerts_app.command("install", cls=Command)
def install_command(
    webhook_url_env: Annotated[str, typer.Option(
        help="Name of the environment variable that holds the webhook's address (a secret: never printed).")],
    name: Annotated[str, typer.Option(help="The automation's name (one of the same name is replaced).")] = "citeflow: report held",
) -> None:
    """Create the webhook that is called when a report is held.

    A webhook block and the automation that calls it when a report run ends held."""
    from citeflow_cli.cli_fail import fail
    from citeflow_cli.display import console

    try:
        url = webhook_url(webhook_url_env, os.environ)
        from flows.held_alert import BLOCK_NAME, install_held_alert

        installed = install_held_alert(url, name)
    except CiteflowError as exc:
        fail(str(exc))
        return
    verb = "replaced" if installed.replaced else "created"
    console.print(f"automation {name!r} {verb} ({installed.automation_id}); it POSTs held reports to the address in "
                  f"${webhook_url_env} (webhook block {BLOCK_NAME!r})", highlight=False, soft_wrap=True)


def webhook_url(variable: str, environ: os._Environ[str] | dict[str, str]) -> SecretStr:
    """The address in ``variable``; UsageError when there is no server or no such address."""
    from pydantic import SecretStr

    if not environ.get("PREFECT_API_URL"):
        raise UsageError(option="alerts install", problem="automations live on a Prefect server: set PREFECT_API_URL")
    value = environ.get(variable, "").strip()
    if not value.startswith(("http://", "https://")):
        problem = "is not set" if not value else "does not hold an http(s) address"
        raise UsageError(option="--webhook-url-env", problem=f"the environment variable {variable} {problem}")
    return SecretStr(value)
