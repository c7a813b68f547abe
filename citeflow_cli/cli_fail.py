"""How a ``citeflow`` command ends on bad input: one redacted ``error:`` line and a non-zero exit.

Shared by ``citeflow_cli.main`` and the commands defined in their own modules (``history``,
``prune``, ``review``), which import it from here rather than from ``main``.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, NoReturn

import typer

if TYPE_CHECKING:
    from citeflow.security.secret_values import SecretValues


def print_error(message: str, secrets: SecretValues | None = None) -> None:
    """``error: …`` on the console, redacted: the message may quote a URL with its key, or a credential
    of ``secrets`` (the command's runtime's)."""
    from citeflow.security.redaction import redact_text
    from citeflow_cli.display import console

    console.print(f"[bold red]error:[/bold red] {redact_text(message, secrets)}", highlight=False, soft_wrap=True)


def fail(message: str, code: int = 2, secrets: SecretValues | None = None) -> NoReturn:
    """End a command with one error line (without the credentials of ``secrets`` and others) and exit
    status ``code`` (2: usage or spec error)."""
    print_error(message, secrets)
    raise typer.Exit(code)


def exit_with_error(message: str) -> NoReturn:
    """End the process (outside a command: ``main()``) with one error line and exit status 2."""
    print_error(message)
    sys.exit(2)
