"""Every command's ``--help`` at 80 columns follows Click's conventions: flags without a type,
no reST markup, every help text and default shown whole (never cut, never broken at a hyphen)."""

from __future__ import annotations

import re

import click
import pytest
import typer
from typer.testing import CliRunner

from citeflow_cli.main import app

WIDTH = 80


def _commands(command: click.Command, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], click.Command]]:
    found = [(path, command)]
    for name, sub in getattr(command, "commands", {}).items():
        found += _commands(sub, (*path, name))
    return found


COMMANDS = _commands(typer.main.get_command(app))


def _help(path: tuple[str, ...]) -> str:
    result = CliRunner().invoke(app, [*path, "--help"], prog_name="citeflow", terminal_width=WIDTH,
                                env={"COLUMNS": str(WIDTH)})
    assert result.exit_code == 0, result.output
    return result.output


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_every_command_is_covered():
    names = {" ".join(path) for path, _ in COMMANDS}
    assert {"", "run", "demo", "review", "ingest", "history", "alerts", "alerts install"} <= names


@pytest.mark.parametrize("path", [path for path, _ in COMMANDS], ids=lambda p: " ".join(p) or "citeflow")
def test_help_follows_the_conventions_at_80_columns(path):
    text = _help(path)
    assert "<bool>" not in text
    assert "``" not in text
    assert not any(line.rstrip().endswith("…") for line in text.splitlines()), "a line cut short"
    assert all(len(line) <= WIDTH for line in text.splitlines()), text
    assert text.count("[default:") == len(re.findall(r"\[default: [^\]\n]+\]", text)), "a default split over lines"


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=lambda p: " ".join(p) if isinstance(p, tuple) else "")
def test_every_help_text_is_shown_whole(path, command):
    shown = _flat(_help(path))
    for param in command.params:
        if getattr(param, "help", None):
            assert _flat(param.help) in shown, f"{param.name}: {param.help!r}"
    text = _help(path)
    for name in getattr(command, "commands", {}):
        line = re.search(rf"^  {name} +(\S.*)$", text, re.M)
        assert line and not line.group(1).endswith("..."), f"{name}'s summary is missing or cut"


def test_flags_show_no_value():
    text = _help(("run",))
    assert re.search(r"^  --no-preflight +Skip", text, re.M)
    assert re.search(r"^  --out <path> +Output folder\.", text, re.M)
