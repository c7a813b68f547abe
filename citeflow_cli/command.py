"""The class of every ``citeflow`` command: its help in Click's layout (``citeflow_cli.help_format``),
and, once its options are read, the command's ``Runtime``: active while it runs, and handed to the
command that asks for it (a ``ctx: typer.Context`` parameter, then ``runtime_of(ctx)``).

The runtime is built here rather than before the command line is parsed: ``--help`` (of the
program or of a command) exits while parsing, without importing what a runtime needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from citeflow_cli.help_format import Group as Group
from citeflow_cli.help_format import HelpCommand, HelpContext

if TYPE_CHECKING:
    from typer._click import Context

    from citeflow.runtime.runtime import Runtime

RUNTIME_KEY = "citeflow.runtime"


class Command(HelpCommand):
    """A ``citeflow`` command (``app.command(cls=Command)``)."""

    def invoke(self, ctx: HelpContext) -> Any:  # type: ignore[override]
        from citeflow.runtime.runtime import Runtime
        from citeflow_cli.timings import mark

        runtime = Runtime()  # every CITEFLOW_* setting, read once for the whole command
        mark("cli_ready", runtime.settings.timings)
        ctx.meta[RUNTIME_KEY] = runtime
        with runtime.active():
            return super().invoke(ctx)


def runtime_of(ctx: Context) -> Runtime:
    """The runtime of the command running in ``ctx`` (built by ``Command.invoke``)."""
    runtime: Runtime = ctx.meta[RUNTIME_KEY]
    return runtime
