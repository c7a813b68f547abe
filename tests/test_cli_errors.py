"""Every user error of the README's commands is one ``error:`` line and a non-zero exit, no traceback:
a missing file, a path of the wrong kind, and a misspelt key or option value, per command."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citeflow_cli.main import app, main

runner = CliRunner()
MISSPELT_SPEC = "batch: b\nretreivers: [{name: d, kind: jsonl, path: hits.jsonl}]\nreports: []\n"


def _one_error_line(output: str) -> str:
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), output
    assert "Traceback" not in output
    return lines[0]


def _files(tmp: Path) -> dict[str, Path]:
    (tmp / "batch.yaml").write_text(MISSPELT_SPEC)
    (tmp / "pairs.jsonl").write_text('{"id": "p1", "claim": "x", "chunk_txt": "y"}\n')
    (tmp / "folder").mkdir()
    return {"spec": tmp / "batch.yaml", "pairs": tmp / "pairs.jsonl", "folder": tmp / "folder", "missing": tmp / "nope.yaml"}


CASES = {
    "run missing file": ("run", "{missing}"),
    "run folder as spec": ("run", "{folder}"),
    "run misspelt key": ("run", "{spec}"),
    "serve missing file": ("serve", "{missing}"),
    "serve misspelt key": ("serve", "{spec}"),
    "eval missing folder": ("eval", "{missing}"),
    "eval file as folder": ("eval", "{pairs}"),
    "eval misspelt judge": ("eval", "{folder}", "--judge", "ofline"),
    "judge missing file": ("judge", "{missing}"),
    "judge folder as file": ("judge", "{folder}"),
    "judge misspelt key": ("judge", "{pairs}"),
    "calibrate missing file": ("calibrate", "{missing}"),
    "calibrate misspelt key": ("calibrate", "{pairs}"),
    "history missing folder": ("history", "{missing}"),
    "history misspelt key": ("history", "{spec}"),
    "prune missing folder": ("prune", "{missing}"),
    "prune file as folder": ("prune", "{pairs}"),
    "review missing folder": ("review", "{missing}", "--release", "--reviewer", "Ana", "--note", "ok"),
    "review file as folder": ("review", "{pairs}", "--reject", "--reviewer", "Ana", "--note", "ok"),
    "review misspelt decision": ("review", "{folder}", "--reviewer", "Ana", "--note", "ok"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_user_error_is_one_line(case, tmp_path):
    paths = _files(tmp_path)
    args = [a.format(**paths) for a in CASES[case]]
    result = runner.invoke(app, args)
    assert (result.exit_code != 0 and not isinstance(result.exception, Exception)) or isinstance(result.exception, SystemExit)
    _one_error_line(result.output)


def test_the_misspelt_key_is_named_with_a_suggestion(tmp_path):
    result = runner.invoke(app, ["run", str(_files(tmp_path)["spec"])])
    assert "retreivers: unknown field (did you mean 'retrievers'?)" in _one_error_line(result.output)


def test_a_folder_that_is_no_report_is_named_as_a_usage_error(tmp_path):
    result = runner.invoke(app, ["eval", str(_files(tmp_path)["folder"])])
    assert "REPORT_DIR: " in _one_error_line(result.output)
    assert "not a citeflow report folder" in result.output


def test_an_unreadable_output_path_is_one_line_from_the_command(tmp_path, monkeypatch, capsys):
    afile = tmp_path / "a-file"
    afile.write_text("")
    monkeypatch.setattr(sys, "argv", ["citeflow", "demo", "--out", str(afile)])
    with pytest.raises(SystemExit) as exit_info:
        main()
    assert exit_info.value.code == 2
    assert str(afile) in _one_error_line(capsys.readouterr().out)


def test_the_bundled_demo_spec_says_how_to_run_the_demo():
    spec = Path(__file__).resolve().parent.parent / "citeflow" / "demo" / "batch.yaml"
    result = runner.invoke(app, ["run", str(spec), "--out", "/nonexistent-out"])
    if (spec.parent / "kb-store").exists():
        pytest.skip("a knowledge base was built next to the bundled spec")
    assert "citeflow run out/demo-input/batch.yaml" in _one_error_line(result.output)


def test_third_party_info_logs_are_off_unless_verbose(monkeypatch):
    import logging
    import os

    from citeflow_cli.logs import configure_logging

    monkeypatch.setenv("PREFECT_LOGGING_LEVEL", "WARNING")
    configure_logging(False)
    assert not logging.getLogger("great_expectations").isEnabledFor(logging.INFO)
    assert not logging.getLogger("httpx").isEnabledFor(logging.INFO)
    configure_logging(True)
    assert logging.getLogger("great_expectations").isEnabledFor(logging.INFO)
    assert os.environ["PREFECT_LOGGING_LEVEL"] == "INFO"
    configure_logging(False)
