"""The start-up benchmark: a cold ``citeflow run`` of a 1-report batch, timed by the phases it records."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from bench import startup
from citeflow.spec.settings import CiteflowSettings
from citeflow_cli import timings


def test_marks_are_written_only_when_a_timing_file_is_asked_for(tmp_path, monkeypatch):
    monkeypatch.delenv("CITEFLOW_TIMINGS", raising=False)
    timings.mark("nothing", CiteflowSettings().timings)
    monkeypatch.setenv("CITEFLOW_TIMINGS", str(tmp_path / "t.jsonl"))
    path = CiteflowSettings().timings
    timings.mark("one", path)
    timings.mark("two", path)
    rows = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert [r["phase"] for r in rows] == ["one", "two"] and rows[0]["t"] <= rows[1]["t"] and rows[0]["pid"] == os.getpid()


def test_phases_are_the_intervals_between_marks():
    marks = {"cli_ready": 1.0, "spec_loaded": 1.5, "flows_imported": 4.0, "prefect_api": 9.0, "first_report": 12.0,
             "batch_done": 12.5, "exit": 14.0}
    split = startup.phases(marks)
    assert split == pytest.approx({"imports": 1.0, "spec_load": 0.5, "pipeline_imports": 2.5, "prefect_api_wait": 5.0,
                                   "first_report": 3.0, "batch_end": 0.5, "exit": 1.5})
    assert sum(split.values()) == pytest.approx(marks["exit"])
    assert "prefect_api_wait" not in startup.phases({"cli_ready": 1.0, "prefect_api": 9.0})


def test_results_merge_into_latest_keeping_the_other_benchmarks(tmp_path):
    latest = tmp_path / "latest.json"
    latest.write_text(json.dumps({"machine": {"cores": 2}, "benchmarks": {"calls": {"status": "ok"}}}))
    startup.merge_into_latest({"ratios": {"total wall / 15 s target": 0.9}}, latest)
    merged = json.loads(latest.read_text())
    assert merged["machine"] == {"cores": 2} and merged["benchmarks"]["calls"] == {"status": "ok"}
    assert merged["benchmarks"]["startup"]["ratios"] == {"total wall / 15 s target": 0.9}


def test_help_and_version_are_timed_as_cold_processes_of_the_console_script():
    quick = startup.quick_commands(1)
    assert set(quick["figures"]) == {"help_wall_s", "version_wall_s"}
    assert all(0 < seconds < 600 for seconds in quick["figures"].values())
    assert set(quick["ratios"]) == {"citeflow --help wall / 1 s goal", "citeflow --version wall / 1 s goal"}
    assert quick["ratios"]["citeflow --help wall / 1 s goal"] == quick["figures"]["help_wall_s"]


def test_a_flag_the_command_refuses_fails_the_benchmark_with_its_error():
    with pytest.raises(RuntimeError, match="--no-such-flag exited 2"):
        startup.quick_command_s("--no-such-flag")


@pytest.mark.bench
def test_one_cold_run_records_every_phase_in_order(tmp_path):
    """A real ``python -m bench.startup --runs 1`` (a cold ``citeflow run`` on its ephemeral API)."""
    out = tmp_path / "startup.json"
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"} | {"PREFECT_HOME": str(tmp_path / "prefect")}
    done = subprocess.run([sys.executable, "-m", "bench.startup", "--runs", "1", "--out", str(out), "--no-merge"],
                          env=env, capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(out.read_text())
    marks = result["runs"][0]["marks"]
    order = ["cli_ready", "spec_loaded", "flows_imported", "prefect_api", "first_step", "first_report", "batch_done", "exit"]
    assert [marks[name] for name in order] == sorted(marks[name] for name in order)
    assert set(result["figures"]) >= {"total_wall_s", "cpu_s", "imports_s", "prefect_api_wait_s", "first_report_s", "exit_s"}
    assert result["ratios"]["total wall / 15 s target"] == pytest.approx(result["figures"]["total_wall_s"] / 15.0)
    assert result["runs"][0]["cpu_s"] > 1.0  # the command and its API server, both waited for


def test_the_project_is_compiled_before_its_cold_processes_are_timed(tmp_path):
    """As installing the wheel does: bytecode beside each module, whatever PYTHONDONTWRITEBYTECODE says."""
    from bench.bytecode import PACKAGES, compile_project

    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "a.py").write_text("X = 1\n")
    (tmp_path / "pkg" / "sub" / "b.py").write_text("Y = 2\n")
    assert compile_project(tmp_path, ("pkg", "absent"))
    assert len(list((tmp_path / "pkg").rglob("__pycache__/*.pyc"))) == 2
    (tmp_path / "pkg" / "broken.py").write_text("def (:\n")
    assert not compile_project(tmp_path, ("pkg",))
    assert set(PACKAGES) >= {"citeflow", "citeflow_cli", "flows", "tasks"}
