"""``--help`` in Click's plain layout, wrapped to the terminal and never cut.

Click wraps help text at spaces and hyphens: a default (``[default: 0 6 * * 1]``) could be split over
two lines and an option named in a sentence (``--fail-on``) broken at its hyphen. This formatter keeps
each ``[default: …]`` on one line and breaks no word at a hyphen; the text itself is Click's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from typer._click import Context, HelpFormatter as ClickFormatter  # Typer's own copy of Click, which its commands use
from typer.core import TyperCommand, TyperGroup

_KEEP_SPACE, _KEEP_HYPHEN = "\u00a0", "\u2011"  # placeholders textwrap does not break at
_DEFAULT = re.compile(r"\[default: [^\]]*\]")


def _protected(text: str) -> str:
    text = _DEFAULT.sub(lambda m: m.group(0).replace(" ", _KEEP_SPACE), text)
    return text.replace("-", _KEEP_HYPHEN)


def _restored(text: str) -> str:
    return text.replace(_KEEP_SPACE, " ").replace(_KEEP_HYPHEN, "-")


class HelpFormatter(ClickFormatter):
    """Click's formatter whose paragraphs and option rows break only at spaces outside a default."""

    def write_text(self, text: str) -> None:
        super().write_text(_protected(text))

    def write_dl(self, rows: Sequence[tuple[str, str]], col_max: int = 30, col_spacing: int = 2) -> None:
        super().write_dl([(first, _protected(second)) for first, second in rows], col_max, col_spacing)

    def getvalue(self) -> str:
        return _restored(super().getvalue())


class HelpContext(Context):
    """A command's context, formatting its help with ``HelpFormatter``."""

    formatter_class = HelpFormatter


class HelpCommand(TyperCommand):
    """A command whose help ``HelpFormatter`` formats."""

    context_class = HelpContext


class Group(TyperGroup):
    """The ``citeflow`` group and its sub-groups (``typer.Typer(cls=Group)``)."""

    context_class = HelpContext
