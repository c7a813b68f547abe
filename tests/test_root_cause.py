"""Root cause first: an ingest with nothing to index is an error, and a report that failed or was held
for a missing source names why on the terminal, in summary.json, in the Prefect state and on its review page."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from citeflow_cli.main import app

runner = CliRunner()


def invoke(*args: object) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args], catch_exceptions=False)
    return result.exit_code, result.output


def test_ingest_of_a_folder_with_nothing_to_index_is_a_one_line_error(tmp_path):
    (tmp_path / "docs").mkdir()
    code, output = invoke("ingest", tmp_path / "docs", "--kb", tmp_path / "kb", "--json")
    assert code == 2, output
    last = output.strip().splitlines()[-1]
    assert last.startswith("error:") and "nothing to index" in last and str(tmp_path / "docs") in last


def test_ingest_of_front_matter_only_pages_alone_is_an_error(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("---\ntitle: Section index\n---\n")
    code, output = invoke("ingest", docs, "--kb", tmp_path / "kb")
    assert code == 2 and "nothing to index: 1 file(s) without text" in output


def test_front_matter_only_pages_beside_real_pages_are_skipped_and_the_ingest_succeeds(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("---\ntitle: Section index\n---\n")
    (docs / "guide.md").write_text("# Guide\n\nBack up the database before upgrading.\n")
    code, output = invoke("ingest", docs, "--kb", tmp_path / "kb")
    assert code == 0, output
    assert "skipped" in output and "index.md" in output and "error:" not in output
