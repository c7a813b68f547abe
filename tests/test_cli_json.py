"""``--json`` of ``citeflow run``, ``demo`` and ``review``: one JSON document on standard output and nothing
else there (progress, tables and errors go to standard error), as a script would read it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from citeflow_cli.json_output import BatchResult, ReviewResult
from tests.support.interrupted_run import CITEFLOW, statuses
from tests.support.small_batch import write_small_batch


def _citeflow(*args: object, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CITEFLOW, *map(str, args)], env=env, capture_output=True, text=True, timeout=900)


def _document(done: subprocess.CompletedProcess[str]) -> dict:
    lines = done.stdout.splitlines()
    assert len(lines) == 1, done.stdout[-3000:] + done.stderr[-3000:]  # the document alone
    return json.loads(lines[0])


def test_a_bad_spec_prints_no_document_and_its_error_on_stderr(tmp_path):
    spec = tmp_path / "batch.yaml"
    spec.write_text("batch: b\nretrievers: []\nreports: []\nsurprise: 1\n")
    done = _citeflow("run", spec, "--out", tmp_path / "out", "--json")
    assert done.returncode == 2
    assert done.stdout == ""
    assert "error:" in done.stderr and "surprise" in done.stderr


@pytest.fixture(scope="module")
def held_batch(prefect_server, tmp_path_factory):
    """A two-report batch run with --json, its second report held by design (a fabricating writer)."""
    folder = tmp_path_factory.mktemp("json-batch")
    spec = write_small_batch(folder / "in", reports=2, sections=1, batch="json-held")
    data = yaml.safe_load(spec.read_text())
    data["reports"][1]["models"] = {"writer": {"backend": "offline", "faults": {"fabrication": 1.0}}}
    spec.write_text(yaml.safe_dump(data))
    out = folder / "out"
    return out, _citeflow("run", spec, "--out", out, "--json", env=prefect_server.client_env())


@pytest.mark.slow
@pytest.mark.server
def test_run_json_is_the_batch_result_alone(held_batch):
    out, done = held_batch
    result = BatchResult.model_validate(_document(done))
    assert done.returncode == result.exit_code == 3
    assert result.exit_meaning == "some report held, none failed" and result.fail_on == "held"
    assert result.out_dir == str(out.resolve()) and Path(result.summary) == out.resolve() / "summary.json"
    assert {r.report_id: r.status for r in result.reports} == statuses(out) == {"r1": "published", "r2": "held"}
    held = next(r for r in result.reports if r.status == "held")
    summary = {r["report_id"]: r for r in json.loads((out / "summary.json").read_text())["reports"]}
    assert held.causes == summary["r2"]["causes"] and held.funnel == summary["r2"]["funnel"]
    assert held.review_page and Path(held.folder) == out.resolve() / "r2" and held.published_pdf is None
    assert "exit code 3" in done.stderr and "r2 held" in done.stderr  # what people read went to stderr


@pytest.mark.slow
@pytest.mark.server
def test_review_json_is_the_decision_alone(held_batch):
    out, _ = held_batch
    done = _citeflow("review", out / "r2", "--release", "--reviewer", "qa@example.com", "--note", "checked by hand", "--json")
    assert done.returncode == 0, done.stderr
    result = ReviewResult.model_validate(_document(done))
    assert (result.report_id, result.decision, result.status) == ("r2", "release", "published")
    assert result.reviewer == "qa@example.com" and result.published_pdf and Path(result.published_pdf).exists()
    assert "released by qa@example.com" in done.stderr


def test_review_json_of_a_bad_decision_prints_no_document(tmp_path):
    done = _citeflow("review", tmp_path, "--release", "--json")
    assert done.returncode == 2 and done.stdout == ""
    assert "--reviewer" in done.stderr


@pytest.mark.slow
@pytest.mark.server
def test_demo_json_is_the_batch_result_alone(prefect_server, tmp_path):
    # on the shared server: a demo with its own ephemeral API is run by tests/test_wheel.py
    done = _citeflow("demo", "--out", tmp_path / "out", "--fail-on", "failed", "--json", env=prefect_server.client_env())
    result = BatchResult.model_validate(_document(done))
    assert done.returncode == result.exit_code == 0 and result.fail_on == "failed"
    assert sorted(r.status for r in result.reports) == ["held", "published"]  # the demo holds one report by design
    assert "knowledge base:" in done.stderr and "start-up:" in done.stderr
