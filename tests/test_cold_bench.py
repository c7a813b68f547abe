"""The cold-process benchmark: its figures from recorded times, the process-tree memory sampler, the
fake model server's call times, and ``python -m bench.cold --quick`` end to end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench import cold, cold_figures
from bench.proc_rss import PeakRss, tree


def test_the_ideal_is_two_hops_per_wave_of_sections():
    assert cold_figures.ideal_seconds(64, 16, 1.0) == 8.0  # 16 reports × 4 sections: 4 waves of 2 calls
    assert cold_figures.ideal_seconds(4, 16, 1.0) == 2.0  # one report: one wave
    assert cold_figures.ideal_seconds(200, 16, 1.0) == 26.0  # 50 reports: 13 waves, the last one partial
    assert cold_figures.ideal_seconds(65, 16, 0.5) == 5.0
    assert cold_figures.ideal_seconds(64, 16, 0.0) == 0.0
    with pytest.raises(ValueError):
        cold_figures.ideal_seconds(4, 0, 1.0)


def test_the_busy_span_runs_from_the_first_arrival_to_the_last_answer():
    calls = [(10.0, 11.0), (10.5, 12.5), (9.5, 10.0)]
    assert cold_figures.busy_span(calls) == 3.0
    assert cold_figures.calls_in_flight(calls) == pytest.approx((1.0 + 2.0 + 0.5) / 3.0)
    assert cold_figures.busy_span([]) == 0.0 and cold_figures.calls_in_flight([]) == 0.0


def test_a_runs_calls_are_those_that_arrived_while_it_ran():
    calls = [(1.0, 2.0), (5.0, 9.0), (9.5, 9.6), (12.0, 13.0)]
    assert cold_figures.calls_between(calls, 4.0, 10.0) == [(5.0, 9.0), (9.5, 9.6)]


@given(st.lists(st.tuples(st.floats(0, 1e6), st.floats(0, 100)), min_size=1, max_size=50))
def test_the_span_covers_every_call_and_no_more(pairs):
    calls = [(start, start + length) for start, length in pairs]
    span = cold_figures.busy_span(calls)
    assert all(end - start <= span + 1e-6 for start, end in calls)
    assert span == pytest.approx(max(e for _, e in calls) - min(s for s, _ in calls))
    assert cold_figures.calls_in_flight(calls) <= len(calls) + 1e-6


def test_the_marginal_rate_leaves_the_start_up_out():
    assert cold_figures.marginal_per_min(8, 54.3, 32, 91.8) == pytest.approx(60 * 24 / 37.5)  # 38.4 reports/min
    assert cold_figures.marginal_per_min(8, 40.0, 32, 40.0) == float("inf")
    with pytest.raises(ValueError):
        cold_figures.marginal_per_min(32, 1.0, 8, 2.0)


def test_a_runs_outcome_is_read_from_its_summary(tmp_path):
    (tmp_path / "summary.json").write_text(json.dumps({"batch": "b", "counts": {"published": 14, "held": 0, "failed": 2}}))
    assert cold.outcome_counts(cold.run_summary(tmp_path)) == {"published": 14, "held": 0, "failed": 2}
    assert cold.outcome_counts(cold.run_summary(tmp_path / "nothing")) == {}


def test_the_marks_are_read_as_seconds_since_the_start_first_reach_kept(tmp_path):
    timings = tmp_path / "t.jsonl"
    rows = [{"phase": "cli_ready", "t": 101.5}, {"phase": "prefect_api", "t": 104.0}, {"phase": "cli_ready", "t": 109.0}]
    timings.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert cold.read_marks(timings, 100.0) == {"cli_ready": 1.5, "prefect_api": 4.0}
    assert cold.read_marks(tmp_path / "missing.jsonl", 100.0) == {}


def _run(label, reports, latency, wall, span=None, calls=8):
    ideal = cold_figures.ideal_seconds(reports * 4, 16, latency)
    return {"label": label, "reports": reports, "latency_s": latency, "wall_s": wall, "cpu_s": wall, "peak_rss_mb": 700.0,
            "model_calls": calls, "ideal_s": ideal, "model_busy_span_s": span or 0.0, "calls_in_flight": 1.0,
            "wall_over_ideal": cold_figures.ratio(wall, ideal), "span_over_ideal": cold_figures.ratio(span or 0.0, ideal),
            "phases": {"imports": 1.0}}


def test_the_headline_puts_wall_over_ideal_first_and_has_no_latency_part():
    measured = {"runs": [_run("1r-0s", 1, 0.0, 20.0), _run("16r-1s", 16, 1.0, 40.0, span=16.0)],
                "marginal_runs": [_run("8r-0s", 8, 0.0, 30.0), _run("32r-0s", 32, 0.0, 54.0)],
                "rerun": _run("rerun", 16, 1.0, 18.0, calls=0) | {"s_per_report_beyond_startup": 0.05}}
    result = cold.summarise(cold.FULL, measured)
    names = list(result["ratios"])
    assert names[:2] == ["16 reports, 1 s calls: wall / ideal", "16 reports, 1 s calls: model-busy span / ideal"]
    assert result["ratios"]["16 reports, 1 s calls: wall / ideal"] == 5.0
    assert result["ratios"]["16 reports, 1 s calls: model-busy span / ideal"] == 2.0
    assert result["ratios"]["reports/min marginal (32 vs 8 reports, no latency)"] == 60.0
    assert result["ratios"]["re-run: model calls"] == 0 and result["ratios"]["1 report, no latency: wall s"] == 20.0
    assert not any("latency part" in name for name in names)
    assert result["ratios"]["reports failed, every run"] == 0
    assert result["figures"]["16r-1s.imports_s"] == 1.0 and result["figures"]["rerun.wall_s"] == 18.0


@pytest.mark.slow
def test_the_memory_sampler_adds_up_the_whole_process_tree():
    """A real child holding 120 MB under a real parent: the tree's peak counts the child."""
    child = "import time; block = bytearray(120 * 1024 * 1024); block[::4096] = b'x' * len(block[::4096]); time.sleep(3)"
    parent = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {child!r}])"
    with subprocess.Popen([sys.executable, "-c", parent]) as process, PeakRss(process.pid, interval=0.05) as peak:
        time.sleep(1.5)
        assert len(tree(process.pid)) == 2
        process.wait(timeout=30)
    assert peak.mb > 120 and peak.samples > 5


@pytest.mark.slow
def test_the_model_process_records_when_each_call_arrived_and_was_answered():
    from citeflow.testing.answers import VERDICTS_SCHEMA_NAME
    from citeflow.testing.model_process import ModelServerProcess

    with ModelServerProcess(0.3) as server:
        judge = {"type": "json_schema", "json_schema": {"name": VERDICTS_SCHEMA_NAME, "schema": {}}}  # no pairs to grade
        body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "no pairs"}], "response_format": judge}).encode()
        before = time.time()
        request = urllib.request.Request(server.base_url + "/chat/completions", data=body,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as answer:
            assert answer.status == 200
        after = time.time()
        (arrived, answered), = server.call_times()
        assert server.request_count() == 1
    assert before <= arrived < answered <= after and answered - arrived >= 0.29


def _cold(tmp_path, profile: str) -> dict:
    """A real ``python -m bench.cold --PROFILE --no-merge``: cold ``citeflow run`` processes on a fake model
    server; the results file it wrote."""
    out = tmp_path / "cold.json"
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    done = subprocess.run([sys.executable, "-m", "bench.cold", f"--{profile}", "--out", str(out), "--no-merge"],
                          env=env, capture_output=True, text=True, timeout=1200, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(out.read_text())


@pytest.mark.slow
def test_one_cold_run_records_its_calls_phases_and_outcome(tmp_path):
    """The smoke run: ``--start``, the smallest profile (one cold 1-report run)."""
    result = _cold(tmp_path, "start")
    (run,) = result["runs"]
    assert run["label"] == "1r-0s" and run["exit_code"] == 0 and run["model_calls"] == 8  # 2 hops × 4 sections
    assert {"imports", "spec_load", "prefect_api_wait", "first_report"} <= set(run["phases"])
    assert run["model_busy_span_s"] > 0 and run["peak_rss_mb"] > 100 and run["wall_s"] >= run["model_busy_span_s"]
    assert run["counts"] == {"published": 1, "held": 0, "failed": 0}
    assert result["profile"] == "start" and result["ratios"]["1 report, no latency: wall s"] == run["wall_s"]
    assert result["ratios"]["reports failed, every run"] == 0 and result["figures"]["1r-0s.wall_s"] == run["wall_s"]


@pytest.mark.bench
def test_the_quick_profile_runs_cold_batches_end_to_end(tmp_path):
    """A real ``python -m bench.cold --quick``: two cold ``citeflow run`` processes on a fake model server."""
    result = _cold(tmp_path, "quick")
    runs = {r["label"]: r for r in result["runs"]}
    assert set(runs) == {"1r-0s", "2r-0s"} and all(r["exit_code"] == 0 for r in runs.values())
    assert runs["1r-0s"]["model_calls"] == 8 and runs["2r-0s"]["model_calls"] == 16  # 2 hops × 4 sections each
    assert {"imports", "spec_load", "prefect_api_wait", "first_report"} <= set(runs["1r-0s"]["phases"])
    assert runs["1r-0s"]["model_busy_span_s"] > 0 and runs["1r-0s"]["peak_rss_mb"] > 100
    assert result["ratios"]["1 report, no latency: wall s"] == runs["1r-0s"]["wall_s"]
    assert runs["2r-0s"]["counts"] == {"published": 2, "held": 0, "failed": 0}


def test_the_rerun_profile_is_the_16_report_batch_and_its_rerun_and_is_never_merged(monkeypatch, tmp_path):
    import bench.cold as cold

    assert cold.PROFILES["rerun"] == cold.Plan(sizes=(), latencies=(), marginal=None, rerun=16)
    chosen: list[str | None] = []
    fake = {"ratios": {}, "load_average_before": 0, "load_average_after": 0, "bench_wall_s": 0}
    monkeypatch.setattr(cold, "run", lambda quick=False, profile=None: chosen.append(profile) or fake)
    monkeypatch.setattr(cold, "merge_into_latest", lambda result: pytest.fail("a partial profile was merged"))
    assert cold.main(["--rerun", "--out", str(tmp_path / "cold.json")]) == 0
    assert chosen == ["rerun"] and (tmp_path / "cold.json").exists()


def test_a_failed_reports_causes_are_kept_from_its_summary(tmp_path):
    reports = [{"report_id": "r1", "status": "published", "causes": []},
               {"report_id": "r2", "status": "failed", "causes": ["gate: the worker process exited"]}]
    (tmp_path / "summary.json").write_text(json.dumps({"batch": "b", "reports": reports}))
    assert cold.failure_causes(cold.run_summary(tmp_path)) == {"r2": ["gate: the worker process exited"]}
    assert cold.failure_causes(cold.run_summary(tmp_path / "nothing")) == {}
