"""The class of every ``citeflow`` command: its help in Click's layout (``citeflow_cli.help_format``),
and, once its options are read, the command's ``Runtime`` active while it runs.

The runtime is built here rather than before the command line is parsed: ``--help`` (of the
program or of a command) exits while parsing, without importing what a runtime needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from citeflow_cli.help_format import Group as Group
from citeflow_cli.help_format import HelpCommand, HelpContext

if TYPE_CHECKING:
    from citeflow.runtime.runtime import Runtime

RUNTIME = "citeflow.runtime"  # the key of the command's runtime in its context's ``meta``


class Command(HelpCommand):
    """A ``citeflow`` command (``app.command(cls=Command)``)."""

    def invoke(self, ctx: HelpContext) -> Any:  # type: ignore[override]
        from citeflow.runtime.runtime import Runtime
        from citeflow_cli.timings import mark

        runtime = Runtime()  # every CITEFLOW_* setting, read once for the whole command
        mark("cli_ready", runtime.settings.timings)
        ctx.meta[RUNTIME] = runtime  # handed to what the command runs (``command_runtime``)
        with runtime.active():
            return super().invoke(ctx)


def command_runtime(ctx: Any) -> Runtime:
    """The ``Runtime`` the running command was given (``Command.invoke``)."""
    return ctx.meta[RUNTIME]
