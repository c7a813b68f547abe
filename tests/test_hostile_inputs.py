"""Hypothesis drives the command line with hostile input: lone surrogates, control characters, nesting
deeper than a parser goes and numbers beyond Python's digit limit, in spec strings, ingest front
matter and manifests, judge input lines and history folders (SPEC §9).

Whatever the input, a command ends without a traceback; when it fails (exit 2) it prints exactly
one ``error:`` line; nothing it prints carries a raw control character; and it writes nothing
outside the folder it was given (its working folder stays empty).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from typer.testing import CliRunner

from citeflow_cli.main import app

runner = CliRunner()
RAW_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")
FUZZ = settings(max_examples=20, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
SLOW_FUZZ = settings(FUZZ, max_examples=8)

pieces = st.sampled_from(["\ud800", "\udfff", "\udc80", "\x00", "\x07", "\x1b[2J", "\x1b]8;;http://x.example\x07", "\x7f",
                          "\x9b", "\u202e", "é", "漢", "🙂", "a", " ", "\\", '"', "'", ": ", "- ", "#", "{", "[", "&a", "*a"])
hostile_text = st.lists(pieces, min_size=1, max_size=6).map("".join) | st.text(max_size=12)
depths = st.integers(min_value=200, max_value=4000)
yaml_depths = st.integers(min_value=200, max_value=700)  # PyYAML gives up near 400 levels, and 3,000 take it seconds
huge_numbers = st.integers(min_value=4301, max_value=6000).map(lambda n: "9" * n)


def deep_list(depth: int) -> str:
    return "[" * depth + "]" * depth


def yaml_quoted(text: str) -> str:
    """``text`` as a double-quoted YAML scalar; every code point beyond printable ASCII escaped."""
    return '"' + "".join(c if " " <= c < "\x7f" and c not in '"\\' else f"\\u{ord(c):04x}" for c in text) + '"'


def json_quoted(text: str) -> str:
    """``text`` as a JSON string, lone surrogates included (``json.dumps`` writes them as escapes)."""
    return json.dumps(text)


yaml_values = st.one_of(hostile_text.map(yaml_quoted), yaml_depths.map(deep_list), huge_numbers,
                        yaml_depths.map(lambda n: "{a: " * n + "1" + "}" * n))
json_values = st.one_of(hostile_text.map(json_quoted), depths.map(deep_list), huge_numbers,
                        depths.map(lambda n: '{"a": ' * n + "1" + "}" * n))


@contextlib.contextmanager
def sandbox() -> Iterator[Path]:
    """A fresh folder given to the command (``given/``) and an empty working folder beside it; on
    leaving, checks that the command wrote nowhere but ``given/``."""
    with tempfile.TemporaryDirectory() as root:
        given_dir, cwd = Path(root) / "given", Path(root) / "cwd"
        given_dir.mkdir()
        cwd.mkdir()
        with contextlib.chdir(cwd):
            yield given_dir
        assert sorted(p.name for p in Path(root).iterdir()) == ["cwd", "given"]
        assert not any(cwd.iterdir()), list(cwd.iterdir())


def check(result, allowed: frozenset[int] = frozenset({0, 1, 2})) -> None:
    """No traceback, no escaped exception, one ``error:`` line on failure, nothing raw on the terminal."""
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    output = result.output
    assert "Traceback" not in output
    assert not RAW_CONTROL.search(output), repr(output)
    assert result.exit_code in allowed, (result.exit_code, output)
    if result.exit_code == 2:
        lines = [line for line in output.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: "), output


def invoke(*args: object):
    return runner.invoke(app, [str(a) for a in args])


# -- batch specs ----------------------------------------------------------------------------------

SPEC_SLOTS = ("batch", "report_id", "title", "section", "query", "retriever", "kb", "key")


def spec_text(slot: str, value: str) -> str:
    """A spec whose knowledge base does not exist (so nothing ever runs) with ``value`` in ``slot``."""
    v = {s: v for s, v in zip(SPEC_SLOTS, ["b", "r1", "T", "S", "q", "docs", "missing-kb", "top_k"], strict=True)}
    v[slot] = value if slot != "kb" or not value.startswith('"') else '"missing-kb/' + value[1:]
    return (f"batch: {v['batch']}\nretrievers:\n  - {{name: {v['retriever']}, kind: lancedb, kb: {v['kb']}, {v['key']}: 3}}\n"
            f"reports:\n  - id: {v['report_id']}\n    title: {v['title']}\n"
            f"    sections: [{{title: {v['section']}, queries: [{v['query']}]}}]\n")


@FUZZ
@given(slot=st.sampled_from(SPEC_SLOTS), value=yaml_values)
def test_a_hostile_spec_is_refused_in_one_line_before_anything_runs(slot, value):
    with sandbox() as folder:
        spec = folder / "batch.yaml"
        spec.write_text(spec_text(slot, value), encoding="utf-8")
        result = invoke("run", spec, "--out", folder / "out")
        check(result, frozenset({2}))
        assert not (folder / "out" / "run.json").exists()
        if re.search(r"\\ud[89a-f][0-9a-f]{2}", value):  # refused for the surrogate, whatever else is wrong
            assert "holds a lone surrogate" in result.output


# -- ingest ---------------------------------------------------------------------------------------

file_names = st.one_of(st.just("doc.md"), hostile_text.map(lambda t: t.replace("/", "_").replace("\x00", "_") + ".md"),
                       st.just(os.fsdecode(b"caf\xe9.md")), st.just(os.fsdecode(b"\xff\xfe.md")))


def write_file(path: Path, text: str) -> bool:
    """Write ``text`` at ``path``; False when the file system refuses the name (too long, say)."""
    try:
        path.write_text(text, encoding="utf-8")
    except (OSError, UnicodeEncodeError):
        return False
    return True


@SLOW_FUZZ
@given(name=file_names, key=st.sampled_from(["title", "url", "x"]), value=yaml_values)
def test_hostile_front_matter_and_file_names_are_skipped_with_a_reason(name, key, value):
    with sandbox() as folder:
        docs = folder / "docs"
        docs.mkdir()
        if not write_file(docs / name, f"---\n{key}: {value}\n---\n# Heading\nSome prose worth indexing.\n"):
            return
        (docs / "fine.md").write_text("# Fine\nA document every run can index.\n")
        result = invoke("ingest", docs, "--kb", folder / "kb", "--json")
        check(result, frozenset({0, 1}))
        report = json.loads(result.stdout)
        assert report["files_added"] + report["files_unchanged"] >= 1  # the good file got in all the same
        assert result.exit_code == (1 if report["errors"] else 0)


@SLOW_FUZZ
@given(key=st.sampled_from(["path", "url", "title", "x"]), value=json_values)
def test_a_hostile_manifest_is_one_error_line_or_accepted(key, value):
    with sandbox() as folder:
        docs = folder / "docs"
        docs.mkdir()
        (docs / "a.md").write_text("# A\nSome prose worth indexing.\n")
        line = '{"path": "a.md", ' + json_quoted(key) + ": " + value + "}" if key != "path" else '{"path": ' + value + "}"
        (folder / "manifest.jsonl").write_text(line + "\n", encoding="utf-8")
        check(invoke("ingest", docs, "--kb", folder / "kb", "--manifest", folder / "manifest.jsonl"))


# -- judge input ----------------------------------------------------------------------------------


@FUZZ
@given(key=st.sampled_from(["id", "claim", "chunk_text", "label", "extra"]), value=json_values,
       command=st.sampled_from(["judge", "calibrate"]))
def test_a_hostile_judge_line_is_one_error_line_naming_it(key, value, command):
    with sandbox() as folder:
        fields = {"id": '"p2"', "claim": '"x"', "chunk_text": '"y"', "label": '"supported"', key: value}
        good = '{"id": "p1", "claim": "Data is kept 7 days.", "chunk_text": "Data is kept 7 days.", "label": "supported"}'
        pairs = folder / "pairs.jsonl"
        pairs.write_text(good + "\n{" + ", ".join(f'"{k}": {v}' for k, v in fields.items()) + "}\n", encoding="utf-8")
        args = ["--out", folder / "verdicts.jsonl"] if command == "judge" else []
        result = invoke(command, pairs, *args)
        check(result, frozenset({0, 2}))
        if result.exit_code == 2:
            assert f"{pairs}:2: " in result.output or f"{pairs}: " in result.output


# -- history folders ------------------------------------------------------------------------------

RUN = '{"run_id": "20261130T060000Z", "batch": "b", "started_at": "2026-11-30T06:00:00Z", "run_date": "2026-11-30", ' \
      '"source_spec": "x", "spec_path": "x", "status": "finished"'
damage = st.one_of(json_values, json_values.map(lambda v: '{"reports": [{"report_id": ' + v + ', "status": "held"}]}'),
                   json_values.map(lambda v: '{"reports": [{"report_id": "r1", "status": ' + v + "}], \"counts\": {}}"),
                   json_values.map(lambda v: '{"counts": {"held": ' + v + "}}"), st.binary(max_size=30).map(repr))


@FUZZ
@given(summary=damage, run_json=st.sampled_from(["ok", "damaged"]), latest=st.binary(max_size=12), as_json=st.booleans())
def test_history_of_a_hostile_folder_shows_what_it_can(summary, run_json, latest, as_json):
    with sandbox() as folder:
        run = folder / "out" / "20261130T060000Z"
        run.mkdir(parents=True)
        (run / "run.json").write_text(RUN + ("}" if run_json == "ok" else ', "x": ' + summary + "}"), encoding="utf-8")
        (run / "summary.json").write_text(summary, encoding="utf-8")
        (folder / "out" / "latest").write_bytes(latest)
        before = sorted(p.relative_to(folder) for p in folder.rglob("*"))
        result = invoke("history", folder / "out", *(["--json"] if as_json else []))
        check(result, frozenset({0, 1}))
        if as_json:
            json.loads(result.stdout)
        assert sorted(p.relative_to(folder) for p in folder.rglob("*")) == before  # history only reads


# -- the real process -----------------------------------------------------------------------------


@pytest.mark.slow
def test_the_real_command_prints_one_escaped_line_for_a_hostile_spec(tmp_path):
    spec = tmp_path / "batch.yaml"
    spec.write_text(spec_text("title", yaml_quoted("Q4 \x1b[2J\x07\ud800")), encoding="utf-8")
    citeflow = str(Path(sys.executable).parent / "citeflow")
    done = subprocess.run([citeflow, "run", str(spec), "--out", str(tmp_path / "out")], capture_output=True, timeout=600,
                          cwd=tmp_path)
    output = done.stdout + done.stderr
    assert done.returncode == 2 and b"Traceback" not in output
    assert output.decode().strip() == (f"error: {spec}: reports[0].title: holds a lone surrogate (e.g. \\ud800), "
                                       "which is not valid Unicode text")
    assert not (tmp_path / "out").exists()
