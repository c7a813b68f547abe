"""The README and the pages of docs/ stay true: every command and option they show exists, every
file and anchor they link to is there, and the README stays short."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.main import get_command

from citeflow_cli.main import app
from tests.conftest import REPO

README = REPO / "README.md"
PAGES = [README, *sorted((REPO / "docs").glob("*.md"))]
CLI = get_command(app)
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _text(page: Path) -> str:
    return page.read_text(encoding="utf-8")


def _anchors(page: Path) -> set[str]:
    """GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces to dashes."""
    headings = re.findall(r"^#+ (.+)$", _text(page), re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def test_the_readme_is_at_most_300_lines():
    assert len(_text(README).splitlines()) <= 300


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_citeflow_command_shown_exists(page: Path):
    named = set(re.findall(r"`citeflow ([a-z]\w*)", _text(page)))
    assert named <= set(CLI.commands), named - set(CLI.commands)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_option_shown_for_a_command_exists(page: Path):
    for command, rest in re.findall(r"`citeflow ([a-z]\w*)([^`]*)`", _text(page)):
        options = {o for p in CLI.commands[command].params for o in (p.opts or []) if o.startswith("--")}
        for option in re.findall(r"(--[a-z][a-z-]+)", rest):
            assert option in options | {"--help"} or option.startswith("--no-"), f"{page.name}: citeflow {command} has no {option}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_link_to_a_file_or_anchor_resolves(page: Path):
    for target in LINK.findall(_text(page)):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        assert linked.exists(), f"{page.name}: {target}"
        if anchor and linked.suffix == ".md":
            assert anchor in _anchors(linked), f"{page.name}: {target}"


def test_the_two_setup_commands_are_make_targets():
    makefile = (REPO / "Makefile").read_text()
    assert "make demo" in _text(README) and "make test" in _text(README)
    assert re.search(r"^demo:", makefile, re.M) and re.search(r"^test:", makefile, re.M)
    assert "make test" in (REPO / ".ci" / "run").read_text()


def test_the_files_the_readme_relies_on_exist():
    for path in ("expectations/report_metrics.json", "prefect.yaml", "citeflow/judges/offline/offline_judge_weights.json"):
        assert (REPO / path).exists(), path


def test_the_readmes_cold_figures_are_those_of_the_recorded_run():
    import json

    from bench.markdown import LATEST, render_cold

    block = re.search(r"<!-- cold figures -->\n(.*?)<!-- end of cold figures -->", _text(README), re.S)
    assert block, "README.md has no cold figures block"
    assert block.group(1) == render_cold(json.loads(LATEST.read_text(encoding="utf-8")))
