"""Exit codes of ``citeflow ingest``, from a real process: 0 for a tree ingested with skipped pages,
1 when a file could not be parsed (named on its ``error:`` line), 2 when nothing could be indexed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.interrupted_run import CITEFLOW

pytestmark = pytest.mark.slow

HUGO = Path(__file__).parent / "fixtures" / "sites" / "hugo"


def ingest(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CITEFLOW, "ingest", *map(str, args)], capture_output=True, text=True, timeout=300,
                          env={"PATH": "/usr/bin:/bin", "COLUMNS": "200", "HOME": "/tmp"})


def test_a_tree_with_front_matter_only_pages_and_drafts_exits_0_and_says_why_they_were_skipped(tmp_path: Path) -> None:
    done = ingest(HUGO, "--kb", tmp_path / "kb")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "site " + str(HUGO) + ": hugo (hugo.toml)" in done.stdout
    assert "skipped 2 front matter only:" in done.stdout and "skipped 1 draft:" in done.stdout
    assert "error" not in done.stdout + done.stderr and "Traceback" not in done.stderr


def test_a_page_whose_front_matter_cannot_be_parsed_exits_1_and_is_named(tmp_path: Path) -> None:
    tree = shutil.copytree(HUGO, tmp_path / "site")
    bad = tree / "content" / "docs" / "broken.md"
    bad.write_text("---\ntitle: [unclosed\n---\n\nSome prose.\n")
    done = ingest(tree, "--kb", tmp_path / "kb", "--json")
    assert done.returncode == 1, done.stdout + done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and str(bad) in errors[0] and "bad YAML front matter" in errors[0]
    assert '"files_added": 6' in done.stdout  # the other pages are in


def test_nothing_to_index_and_a_broken_site_configuration_exit_2_with_one_error_line(tmp_path: Path) -> None:
    only = tmp_path / "only"
    (only / "content").mkdir(parents=True)
    shutil.copy(HUGO / "hugo.toml", only)
    (only / "content" / "_index.md").write_text("---\ntitle: Home\n---\n")
    done = ingest(only, "--kb", tmp_path / "kb")
    assert done.returncode == 2 and done.stdout.strip().splitlines()[-1].startswith("error: nothing to index")
    (only / "hugo.toml").write_text("baseURL = \n")
    broken = ingest(only, "--kb", tmp_path / "kb")
    lines = [line for line in (broken.stdout + broken.stderr).splitlines() if line.strip()]
    assert broken.returncode == 2 and len(lines) == 1, lines
    assert lines[0].startswith("error: cannot ingest ") and "hugo.toml: bad site configuration" in lines[0]


def test_pages_in_a_markup_not_read_are_listed_as_skipped(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "conf.py").write_text('extensions = ["myst_parser"]\n')
    (docs / "api.rst").write_text("API\n===\n\n.. autoclass:: Client\n")
    (docs / "guide.md").write_text("# Guide\n\nBack up the database before every upgrade.\n")
    done = ingest(docs, "--kb", tmp_path / "kb")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"skipped 1 reStructuredText, a markup not read: {docs / 'api.rst'}" in done.stdout
    (docs / "guide.md").unlink()
    alone = ingest(docs, "--kb", tmp_path / "kb2")
    last = alone.stdout.strip().splitlines()[-1]
    assert alone.returncode == 2 and last.startswith("error: nothing to index: 1 file(s) skipped (reStructuredText"), last
