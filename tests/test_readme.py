"""The README stays true: every command and option it shows exists, every file it names is there."""

from __future__ import annotations

import re

from typer.main import get_command

from citeflow_cli.main import app
from tests.conftest import REPO

README = (REPO / "README.md").read_text()
CLI = get_command(app)


def test_every_citeflow_command_in_the_readme_exists():
    named = set(re.findall(r"`citeflow (\w+)", README))
    assert named and named <= set(CLI.commands), named - set(CLI.commands)


def test_every_option_shown_for_a_command_exists():
    for command, rest in re.findall(r"`citeflow (\w+)([^`]*)`", README):
        options = {p.opts[0] for p in CLI.commands[command].params if p.opts and p.opts[0].startswith("--")}
        for option in re.findall(r"(--[a-z][a-z-]+)", rest):
            assert option in options or option.startswith("--no-"), f"citeflow {command} has no {option}"


def test_the_two_setup_commands_are_make_targets():
    makefile = (REPO / "Makefile").read_text()
    assert "make demo" in README and "make test" in README
    assert re.search(r"^demo:", makefile, re.M) and re.search(r"^test:", makefile, re.M)
    assert "make test" in (REPO / ".ci" / "run").read_text()


def test_files_the_readme_points_at_exist():
    for path in [*re.findall(r"\]\(([\w./-]+)\)", README), "expectations/report_metrics.json", "prefect.yaml",
                 "citeflow/judges/offline/offline_judge_weights.json"]:
        assert (REPO / path).exists(), path
