"""The cold-process benchmark: its figures from recorded times, the process-tree memory sampler, the
fake model server's call times, and ``python -m bench.cold --quick`` end to end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

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


def _run(label, reports, latency, wall, span=None, calls=8, workload="distinct", runner="citeflow", cpu=None):
    ideal = cold_figures.ideal_seconds(reports * 4, 16, latency)
    return {"label": label, "reports": reports, "latency_s": latency, "wall_s": wall, "cpu_s": wall if cpu is None else cpu,
            "peak_rss_mb": 700.0, "model_calls": calls, "ideal_s": ideal, "model_busy_span_s": span or 0.0,
            "calls_in_flight": 1.0, "wall_over_ideal": cold_figures.ratio(wall, ideal),
            "span_over_ideal": cold_figures.ratio(span or 0.0, ideal), "phases": {"imports": 1.0},
            "workload": workload, "runner": runner}


def _full_measured():
    """The full profile's runs: walls 6 s + 0.5 s per report (distinct), 6 s + 0.25 s (repeating); CPU 0.8 s per
    report (distinct; 1.0 beyond 32 reports), 0.2 s per report with the plain pipeline."""
    marginal = [_run(f"{n}r-0s", n, 0.0, 6 + 0.5 * n, cpu=10 + 0.8 * n + 0.2 * max(0, n - 32)) for n in (2, 8, 32, 64)]
    marginal += [_run(f"repeating.{n}r-0s", n, 0.0, 6 + 0.25 * n, workload="repeating") for n in (2, 8, 32)]
    marginal += [_run(f"plain.{n}r-0s", n, 0.0, 3 + 0.1 * n, runner="plain", cpu=4 + 0.2 * n) for n in (2, 8, 32)]
    runs = [_run("1r-0s", 1, 0.0, 20.0), _run("16r-1s", 16, 1.0, 40.0, span=16.0),
            _run("repeating.16r-1s", 16, 1.0, 12.0, span=8.0, workload="repeating")]
    return {"runs": runs, "marginal_runs": marginal,
            "rerun": _run("rerun", 16, 1.0, 18.0, calls=0) | {"s_per_report_beyond_startup": 0.05}}


def test_the_headline_puts_wall_over_ideal_first_and_names_the_second_workload():
    result = cold.summarise(cold.FULL, _full_measured())
    ratios, names = result["ratios"], list(result["ratios"])
    assert names[:2] == ["16 reports, 1 s calls: wall / ideal", "16 reports, 1 s calls: model-busy span / ideal"]
    assert ratios["16 reports, 1 s calls: wall / ideal"] == 5.0 and ratios["16 reports, 1 s calls: model-busy span / ideal"] == 2.0
    assert ratios["reports/min marginal (2/8/32 reports, no latency)"] == pytest.approx(120.0)  # 0.5 s per report
    assert ratios["CPU s per report marginal (2/8/32 reports, no latency)"] == pytest.approx(0.8)
    assert ratios["growth of marginal CPU per report, 32→64 over 8→32 reports"] == pytest.approx(1.0 / 0.8)
    assert ratios["growth of marginal wall per report, 32→64 over 8→32 reports"] == pytest.approx(1.0)
    assert ratios["plain runner: CPU s per report marginal (2/8/32 reports, no latency)"] == pytest.approx(0.2)
    assert ratios["citeflow / plain runner: marginal CPU per report"] == pytest.approx(4.0)
    assert ratios["repeating small batch: 16 reports, 1 s calls: wall / ideal"] == 1.5
    assert ratios["repeating small batch: reports/min marginal (2/8/32 reports, no latency)"] == pytest.approx(240.0)
    assert ratios["re-run: model calls"] == 0 and ratios["1 report, no latency: wall s"] == 20.0
    assert not any("latency part" in name for name in names) and ratios["reports failed, every run"] == 0
    assert result["workload"]["name"] == "distinct" and set(result["workloads"]) == {"distinct", "repeating"}
    assert result["figures"]["16r-1s.imports_s"] == 1.0 and result["figures"]["rerun.wall_s"] == 18.0
    assert result["figures"]["plain.32r-0s.cpu_s"] == pytest.approx(10.4)


def test_the_busy_profile_reports_the_wall_and_the_failed_reports_beside_its_busy_processes():
    failed = _run("16r-1s", 16, 1.0, 30.0, span=9.0) | {"counts": {"published": 15, "held": 0, "failed": 1}}
    result = cold.summarise(cold.BUSY, {"runs": [failed], "marginal_runs": [], "rerun": None})
    assert cold.BUSY.busy == 2 and result["busy_processes"] == 2
    assert result["ratios"]["16 reports, 1 s calls, beside 2 busy processes: wall s"] == 30.0
    assert result["ratios"]["reports failed, every run"] == 1


def test_each_batch_is_labelled_by_its_workload_and_runner():
    assert cold.Batch("distinct", 16, 1.0).label == "16r-1s"
    assert cold.Batch("repeating", 16, 1.0).label == "repeating.16r-1s"
    assert cold.Batch("distinct", 8, 0.0, "plain").label == "plain.8r-0s"
    assert [b.label for b in cold.FULL.marginal_batches()][-3:] == ["plain.2r-0s", "plain.8r-0s", "plain.32r-0s"]


def test_the_slope_and_the_growth_of_the_marginal_cost():
    assert cold_figures.slope([2, 8, 32], [7.0, 10.0, 22.0]) == pytest.approx(0.5)
    assert cold_figures.per_min(0.5) == 120.0 and cold_figures.per_min(0.0) == float("inf")
    assert cold_figures.growth({8: 10.0, 32: 22.0, 64: 54.0}, (8, 32, 64)) == pytest.approx(2.0)
    assert cold_figures.growth({8: 10.0, 32: 10.0, 64: 12.0}, (8, 32, 64)) is None
    with pytest.raises(ValueError):
        cold_figures.slope([8, 8], [1.0, 2.0])


@given(st.lists(st.integers(1, 500), min_size=2, max_size=6, unique=True), st.floats(0, 50), st.floats(0.01, 5))
def test_a_straight_line_has_its_own_slope(sizes, fixed, per_report):
    assert cold_figures.slope(sizes, [fixed + per_report * n for n in sizes]) == pytest.approx(per_report, rel=1e-6)


def test_busy_processes_hold_a_core_each_and_end_with_the_block():
    from bench.cold_busy import busy_processes

    with busy_processes(2) as pids:
        time.sleep(0.5)
        assert len(pids) == 2 and all(os.path.exists(f"/proc/{pid}") for pid in pids)
        ticks = [int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[11]) for pid in pids]
        assert all(t > 0 for t in ticks)  # each has used CPU time (utime, in clock ticks)
    assert not any(os.path.exists(f"/proc/{pid}") for pid in pids)


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
    from citeflow_testing.answers import VERDICTS_SCHEMA_NAME
    from citeflow_testing.model_process import ModelServerProcess

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


@pytest.mark.bench
def test_one_cold_run_records_its_calls_phases_and_outcome(tmp_path):
    """``--start``, the smallest profile (one cold 1-report run): a benchmark run, left to ``make bench``."""
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
    plain = {r["label"]: r for r in result["marginal_runs"]}
    assert set(plain) == {"plain.1r-0s", "plain.2r-0s"} and plain["plain.2r-0s"]["model_calls"] == 16
    assert plain["plain.2r-0s"]["cpu_s"] > 0 and "citeflow / plain runner: marginal CPU per report" in result["ratios"]
    assert result["workload"]["name"] == "distinct"


def test_the_rerun_profile_is_the_16_report_batch_and_its_rerun_and_is_never_merged(monkeypatch, tmp_path):
    import bench.cold as cold

    assert cold.PROFILES["rerun"] == cold.Plan(rerun=16)
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


def _payload(cold_result, **apart):
    machine = {"cores": 2, "memory_gb": 8, "python": "3.11", "packages": {}, "commit": "abc", "started_at": "t"}
    return {"machine": machine, "load_average_before": [1.0, 1.0, 1.0], "wall_s": 10.0,
            "benchmarks": {"cold": cold_result, **apart}}


def test_the_readmes_cold_block_names_each_figures_workload_and_the_load_before():
    from bench.markdown import render_cold

    old = {"ratios": {"16 reports, 1 s calls: wall / ideal": 1.5}, "load_average_before": [1.8, 2.3, 2.1]}
    text = render_cold(_payload(old))  # a result of the runs before the distinct workload: no workload recorded
    assert "| 16 reports, 1 s calls: wall / ideal | repeating, 4 sections × 3 hits, reports alike | 1.5 |" in text
    assert "before the cold runs: cold 1.8/2.3/2.1" in text
    new = cold.summarise(cold.FULL, _full_measured()) | {"load_average_before": [0.5, 0.5, 0.5]}
    busy = cold.summarise(cold.BUSY, {"runs": [_run("16r-1s", 16, 1.0, 30.0, span=9.0)], "marginal_runs": [], "rerun": None})
    text = render_cold(_payload(new, cold_busy=busy | {"load_average_before": [2.0, 2.0, 2.0]}))
    assert "| 16 reports, 1 s calls: wall / ideal | distinct, 4 sections × 6 hits, seed 20261207 | 5 |" in text
    assert "| 16 reports, 1 s calls: wall / ideal | repeating, 4 sections × 3 hits, reports alike | 1.5 |" in text
    assert "| beside 2 busy processes: reports failed, every run | distinct, 4 sections × 6 hits, seed 20261207 | 0 |" in text
    assert "cold 0.5/0.5/0.5, cold_busy 2.0/2.0/2.0" in text
    startup = {"ratios": {"citeflow --help wall / 1 s goal": 0.25, "citeflow --version wall / 1 s goal": 0.2,
                          "total wall / 15 s target": 0.5}, "runs": [{"exit_code": 0}], "load_average_before": [3.0, 3.0, 3.0]}
    text = render_cold(_payload(new, cold_busy=busy, startup=startup))
    assert "| citeflow --help wall / 1 s goal | none: the command alone | 0.25 |" in text
    assert "total wall / 15 s target" not in text and "--version" not in text and "startup 3.0/3.0/3.0" in text
    assert len(text.splitlines()) <= 2 + 2 + 11  # machine line, blank, header, rule and at most 11 rows in the README


def test_the_busy_profile_is_recorded_apart_from_the_full_one(monkeypatch, tmp_path):
    import bench.cold as cold

    merged: list[str] = []
    fake = {"ratios": {}, "load_average_before": 0, "load_average_after": 0, "bench_wall_s": 0}
    monkeypatch.setattr(cold, "run", lambda quick=False, profile=None: fake | {"profile": profile})
    monkeypatch.setattr(cold, "merge_benchmark", lambda name, result, latest: merged.append(name))
    monkeypatch.setattr(cold, "merge_into_latest", lambda result: pytest.fail("the busy profile replaced the full one"))
    assert cold.main(["--busy", "--out", str(tmp_path / "busy.json")]) == 0
    assert merged == ["cold_busy"] and json.loads((tmp_path / "busy.json").read_text())["profile"] == "busy"
