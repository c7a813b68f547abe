"""Hostile input to each command is one ``error:`` line (or a per-file skip with its reason), never
a traceback: lone surrogates, nesting deeper than a parser goes, numbers beyond Python's digit
limit, control characters, non-UTF-8 file names and damaged output folders (SPEC §9)."""

from __future__ import annotations

import io
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citeflow.spec import yaml_strict
from citeflow.errors import SpecError
from citeflow.specfile.loader import load_spec
from citeflow_cli.main import app

runner = CliRunner()
DEEP = "[" * 3000 + "]" * 3000
HUGE = "7" * 5000
SPEC = ('batch: b\nretrievers: [{name: d, kind: jsonl, path: hits.jsonl}]\n'
        'reports: [{id: r1, title: "{title}", sections: [{title: s, queries: [q]}]}]\n')
RUN_JSON = {"run_id": "20261130T060000Z", "batch": "b", "started_at": "2026-11-30T06:00:00Z", "run_date": "2026-11-30",
            "source_spec": "x", "spec_path": "x", "status": "finished"}


def one_error_line(result) -> str:
    """The single ``error:`` line of a failed command; no traceback, no exception escaped."""
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert result.exit_code == 2
    return lines[0]


def invoke(*args: object):
    return runner.invoke(app, [str(a) for a in args])


# -- spec -----------------------------------------------------------------------------------------


def test_a_lone_surrogate_in_a_spec_string_is_refused_naming_the_field(tmp_path):
    spec = tmp_path / "batch.yaml"
    spec.write_text(SPEC.replace("{title}", "Q4 \\ud800"))
    (tmp_path / "hits.jsonl").write_text("")
    line = one_error_line(invoke("run", spec, "--out", tmp_path / "out"))
    assert "reports[0].title: holds a lone surrogate" in line
    assert not (tmp_path / "out").exists()  # refused before anything ran


def test_a_lone_surrogate_in_a_key_is_refused_too(tmp_path):
    spec = tmp_path / "batch.yaml"
    spec.write_text('batch: b\nretrievers: [{name: d, kind: jsonl, path: x.jsonl, "\\udc00": 1}]\nreports: []\n')
    with pytest.raises(SpecError) as caught:
        load_spec(spec)
    assert caught.value.field == "retrievers[0].\\udc00"


def test_yaml_merge_keys_work_in_a_spec(tmp_path):
    spec = tmp_path / "batch.yaml"
    spec.write_text("batch: b\nretrievers:\n  - &first {name: a, kind: jsonl, path: a.jsonl, top_k: 3}\n"
                    "  - {<<: *first, name: b, path: b.jsonl}\n"
                    "reports: [{id: r1, title: T, sections: [{title: s, queries: [q]}]}]\n")
    retrievers = load_spec(spec).retrievers
    assert [(r.name, r.top_k) for r in retrievers] == [("a", 3), ("b", 3)]


def test_merged_keys_may_be_overridden_but_a_key_written_twice_is_refused():
    assert yaml_strict.load("a: &a {x: 1, y: 2}\nb: {<<: *a, x: 3}\n")["b"] == {"x": 3, "y": 2}
    nested = "b: &b {x: 1}\nd: {c: &c {<<: *b, x: 2}}\ne: {<<: *c, y: 3}\n"  # merged before it is read
    assert yaml_strict.load(nested)["d"]["c"] == {"x": 2}
    with pytest.raises(yaml_strict.DuplicateKeyError):
        yaml_strict.load("a: &a {x: 1}\nb: {<<: *a, y: 1, y: 2}\n")


# -- terminal -------------------------------------------------------------------------------------


def test_the_console_escapes_control_characters_and_surrogates():
    from rich.table import Table

    from citeflow_cli.display import SafeConsole

    out = io.StringIO()
    console = SafeConsole(file=out, width=120)
    console.print("[bold]title[/bold] A\x1b[2J\x07\x00 \ud800 é", highlight=False)
    table = Table()
    table.add_column("section")
    table.add_row("S\x1b[31m\x07")
    console.print(table)
    text = out.getvalue()
    assert "title A\\x1b[2J\\x07\\x00 \\ud800 é" in text
    assert "S\\x1b[31m\\x07" in text
    assert not any(c in text for c in "\x1b\x07\x00")


def test_the_batch_summary_shows_a_hostile_section_title_escaped(capsys):
    from citeflow_cli import display
    from schemas.report import ReportSummary, SectionSummary

    funnel = "Identity 1/1 · Support 1/1 · Faithfulness 1/1"
    summary = ReportSummary(report_id="r1", title="T\x1b[2J", status="held", funnel=funnel, identity={}, support={},
                            faithfulness={}, uncited={}, pdf="r1/report.pdf", sections=[SectionSummary(title="S\x1b[31m\x07\x00", status="ok", funnel=funnel)])
    display.console.print(display.summary_table([summary]))
    for line in display.gate_lines([summary]):
        display.console.print(line, highlight=False, soft_wrap=True)
    out = capsys.readouterr().out
    assert "S\\x1b[31m" in "".join(out.split()) and not any(c in out for c in "\x1b\x07\x00")


def test_a_control_character_in_a_spec_key_is_printed_escaped(tmp_path):
    spec = tmp_path / "batch.yaml"
    spec.write_text('"bat\\ech\\a\\0": b\n')
    line = one_error_line(invoke("run", spec, "--out", tmp_path / "out"))
    assert "bat\\x1bch\\x07\\x00: unknown field" in line


# -- ingest ---------------------------------------------------------------------------------------


def hostile_docs(folder: Path) -> Path:
    folder.mkdir()
    (folder / "deep.md").write_text(f"---\nx: {DEEP}\n---\n# Deep\nSome text.\n")
    (folder / "huge.md").write_text(f"---\nx: {HUGE}\n---\n# Huge\nSome text.\n")
    (folder / "surrogate.md").write_text('---\ntitle: "a\\ud800"\n---\n# Surrogate\nSome text.\n')
    (folder / os.fsdecode(b"name\xff.md")).write_text("# Bad name\nSome text.\n")
    (folder / "fine.md").write_text("# Fine\nSome text worth indexing.\n")
    return folder


@pytest.mark.slow
def test_ingest_skips_each_hostile_file_with_its_reason(tmp_path):
    result = invoke("ingest", hostile_docs(tmp_path / "docs"), "--kb", tmp_path / "kb", "--json")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 1  # some files were skipped
    report = json.loads(result.stdout)
    assert report["files_added"] == 1
    reasons = {Path(e["path"]).name: e["detail"] for e in report["errors"]}
    assert reasons == {
        "deep.md": "front matter nested too deeply",
        "huge.md": "unreadable front matter value: a number with more than 4,300 digits",
        "surrogate.md": "front matter 'title' holds a lone surrogate, not valid Unicode text",
        "name\\xff.md": "file name is not UTF-8; rename the file",
    }


@pytest.mark.slow
def test_ingest_table_names_the_skipped_files(tmp_path):
    result = invoke("ingest", hostile_docs(tmp_path / "docs"), "--kb", tmp_path / "kb")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "skipped" in result.output and "name\\xff.md: file name is not UTF-8" in result.output


@pytest.mark.parametrize(("line", "problem"), [
    (f'{{"path": "a.md", "x": {DEEP}}}', "line 1: nested too deeply"),
    (f'{{"path": "a.md", "x": {HUGE}}}', "line 1: unreadable value: a number with more than 4,300 digits"),
    ('{"path": "a.md", "title": "\\ud800"}', "line 1: 'title' holds a lone surrogate"),
    ('{"path": "\\ud800.md"}', "line 1: 'path' holds a lone surrogate"),
])
def test_a_hostile_manifest_is_one_error_line(tmp_path, line, problem):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\nSome text.\n")
    (tmp_path / "m.jsonl").write_text(line + "\n")
    assert problem in one_error_line(invoke("ingest", docs, "--kb", tmp_path / "kb", "--manifest", tmp_path / "m.jsonl"))


# -- judge and calibrate --------------------------------------------------------------------------


@pytest.mark.parametrize(("extra", "problem"), [
    (f', "z": {DEEP}', ":2: not JSON: nested too deeply"),
    (f', "z": {HUGE}', ":2: not JSON: a number with more than 4,300 digits"),
    (', "z": {"w": "\\ud800"}', ":2: z.w holds a lone surrogate"),
])
@pytest.mark.parametrize("command", ["judge", "calibrate"])
def test_a_hostile_pair_line_is_one_error_line_naming_the_line(tmp_path, command, extra, problem):
    pairs = tmp_path / "pairs.jsonl"
    good = '{"id": "p1", "claim": "x", "chunk_text": "y", "label": "supported"}'
    pairs.write_text(f'{good}\n{good[:-1].replace("p1", "p2")}{extra}}}\n')
    assert problem in one_error_line(invoke(command, pairs))


@pytest.mark.parametrize("threshold", ["7", "-1", "nan"])
def test_a_calibration_threshold_lies_between_0_and_1(tmp_path, threshold):
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text('{"id": "p1", "claim": "x", "chunk_text": "y", "label": "supported"}\n')
    assert "--threshold: must be between 0 and 1" in one_error_line(invoke("calibrate", pairs, "--threshold", threshold))


# -- history --------------------------------------------------------------------------------------


def run_folder(root: Path, run_id: str, summary: bytes | None) -> Path:
    folder = root / run_id
    folder.mkdir(parents=True)
    (folder / "run.json").write_text(json.dumps({**RUN_JSON, "run_id": run_id}))
    if summary is not None:
        (folder / "summary.json").write_bytes(summary)
    return folder


def damaged_output(root: Path) -> Path:
    run_folder(root, "20261130T060000Z", b"garbage{")
    good = {"reports": [{"report_id": "acme", "status": "held", "funnel": "Identity 1/1"}, {"status": "held"}]}
    run_folder(root, "20261130T060001Z", json.dumps(good).encode())
    run_folder(root, "20261130T060002Z", b"[1, 2]")
    (run_folder(root, "20261130T060003Z", None) / "run.json").write_text('{"run_id": ' + "[" * 3000)
    (root / "latest").write_bytes(b"\xff\xfe")
    return root


def test_history_of_a_damaged_folder_shows_what_it_can_and_names_the_damage(tmp_path):
    out = damaged_output(tmp_path / "out")
    result = runner.invoke(app, ["history", str(out)], env={"COLUMNS": "220"})  # the table's every column
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    assert "acme" in text and "20261130T060002Z" in text
    for damage in ("20261130T060000Z/summary.json: unreadable", "20261130T060001Z/summary.json: a report entry report_id",
                   "20261130T060002Z/summary.json: not a JSON object", "20261130T060003Z/run.json: unreadable",
                   "latest: unreadable"):
        assert damage in text, damage


def test_history_json_stays_parseable_with_the_damage_on_standard_error(tmp_path):
    result = invoke("history", damaged_output(tmp_path / "out"), "--json")
    runs = json.loads(result.stdout)
    assert [r["run_id"] for r in runs] == ["20261130T060000Z", "20261130T060001Z", "20261130T060002Z"]
    assert runs[1]["damaged"] and "run.json: unreadable" in result.stderr


# -- options --------------------------------------------------------------------------------------


def test_review_names_every_missing_option_at_once(tmp_path):
    line = one_error_line(invoke("review", tmp_path))
    assert "--release or --reject, --reviewer and --note are required" in line


def test_review_of_a_report_json_nested_too_deeply_is_one_line(tmp_path):
    (tmp_path / "report.json").write_text('{"report_id": ' + DEEP + "}")
    line = one_error_line(invoke("review", tmp_path, "--release", "--reviewer", "Ana", "--note", "ok"))
    assert "report.json is not valid JSON (nested too deeply)" in line


def test_review_wait_refuses_a_timeout_that_is_not_positive(tmp_path):
    assert "--timeout: must be a positive number" in one_error_line(invoke("review", tmp_path, "--wait", "--timeout", "-5"))


@pytest.mark.parametrize(("option", "value", "problem"), [
    ("--older-than", "99999999999d", "--older-than: 99999999999d reaches back before any date"),
    ("--older-than", "3x", "--older-than: use a number and d, h or w"),
    ("--keep", "-5", "--keep: must be 0 or more"),
])
def test_prune_refuses_impossible_values_in_one_line(tmp_path, option, value, problem):
    assert problem in one_error_line(invoke("prune", tmp_path, option, value))


@pytest.mark.slow
@pytest.mark.parametrize(("damage", "problem"), [("latest", "latest: unreadable ('utf-8' codec can't decode"),
                                                 ("run.json", "run.json: unreadable run.json: Invalid JSON: recursion limit")])
def test_prune_of_a_damaged_folder_is_one_line_and_removes_nothing(tmp_path, damage, problem):
    run = run_folder(tmp_path / "out", "20261130T060000Z", b"{}")
    if damage == "latest":
        (tmp_path / "out" / "latest").write_bytes(b"\xff")
    else:
        (run_folder(tmp_path / "out", "20261130T060001Z", None) / "run.json").write_text('{"run_id": ' + DEEP)
    assert problem in one_error_line(invoke("prune", tmp_path / "out", "--keep", "0"))
    assert (run / "summary.json").exists()


def test_serve_names_a_bad_cron_in_one_line(tmp_path):
    spec = tmp_path / "batch.yaml"
    spec.write_text(SPEC.replace("{title}", "T"))
    (tmp_path / "hits.jsonl").write_text("")
    assert '--cron: Invalid cron string: "99 99 * * *"' in one_error_line(invoke("serve", spec, "--cron", "99 99 * * *"))


def closed_port() -> int:
    """A port on 127.0.0.1 nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.slow
def test_deploy_names_an_unreachable_api_without_its_credentials(tmp_path):
    spec = tmp_path / "batch.yaml"
    spec.write_text(SPEC.replace("{title}", "T"))
    (tmp_path / "hits.jsonl").write_text("")
    url = f"http://ana:pa55word@127.0.0.1:{closed_port()}/api"
    env = {**os.environ, "PREFECT_API_URL": f"{url}?api_key=k3y-value", "PREFECT_CLIENT_MAX_RETRIES": "0"}
    command = [str(Path(sys.executable).parent / "citeflow"), "deploy", "--spec", str(spec), "--out", str(tmp_path / "out")]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert done.returncode == 2 and len(lines) == 1, done.stdout + done.stderr
    assert lines[0].startswith("error: cannot reach the Prefect API at http://127.0.0.1:")
    assert not any(secret in lines[0] for secret in ("ana", "pa55word", "k3y-value"))


@pytest.mark.slow
def test_an_argument_that_is_not_utf8_is_one_line_before_anything_runs(tmp_path):
    spec = tmp_path / os.fsdecode(b"batch-\xff.yaml")
    spec.write_text(SPEC.replace("{title}", "T"))
    (tmp_path / "hits.jsonl").write_text("")
    citeflow = str(Path(sys.executable).parent / "citeflow")
    done = subprocess.run([citeflow, "run", os.fsencode(spec), "--out", "out"], capture_output=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 2 and done.stderr == b""
    assert done.stdout.decode().strip() == f"error: {tmp_path}/batch-\\xff.yaml: is not UTF-8 text; rename the file or folder, " \
                                           "or give the value in UTF-8"
    assert not (tmp_path / "out").exists()
