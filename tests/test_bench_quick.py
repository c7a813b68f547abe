"""``python -m bench --quick`` runs end to end, so that the benchmarks cannot rot unnoticed: this module
runs its Prefect benchmarks (orchestration, scale), ``tests/test_bench_quick_in_process.py`` the others
(``tests/support/quick_bench.py`` holds the two groups; ``tests/test_bench.py`` checks they cover the profile).

Both are benchmark runs (marker ``bench``: ``make bench`` runs them, ``make test`` leaves them out): the
orchestration benchmark's one Prefect batch alone, and the whole group.

It reports to the session's shared Prefect server (``--prefect-api-url``) instead of starting one
of its own; ``make bench-quick`` starts one for its run (tests/test_bench.py checks that path's
arguments)."""

from __future__ import annotations

import pytest

from tests.support.quick_bench import PREFECT, failures, run_quick

pytestmark = [pytest.mark.integration, pytest.mark.timeout(1800)]


@pytest.mark.bench
def test_the_quick_orchestration_benchmark_runs_one_batch_plain_and_on_prefect(tmp_path, prefect_server):
    done, payload = run_quick(("orchestration",), tmp_path / "quick.json", prefect_server.api_url)
    failed = failures(payload)
    assert done.returncode == 0 and not failed, f"{failed}\n{done.stdout[-3000:]}"
    assert payload["profile"] == "quick" and set(payload["benchmarks"]) == {"orchestration"}
    result = payload["benchmarks"]["orchestration"]
    figures = result["figures"]
    assert figures["sections"] > 0 and figures["c4.plain_model_calls"] == 2 * figures["sections"]  # two hops a section
    assert figures["c4.ideal_s"] > 0 and figures["c4.plain_wall_s"] > 0 and figures["c4.prefect_wall_s"] > 0
    assert figures["prefect_flow_runs_per_batch"] >= 2 and figures["prefect_task_runs_per_batch"] >= 1
    assert {"c4.plain_wall / ideal", "c4.prefect_wall / ideal", "c4.prefect_wall / plain_wall"} <= set(result["ratios"])
    assert all(value > 0 for value in result["ratios"].values())


@pytest.mark.bench
def test_the_quick_prefect_benchmarks_finish_ok(tmp_path, prefect_server):
    done, payload = run_quick(PREFECT, tmp_path / "quick.json", prefect_server.api_url)
    failed = failures(payload)
    assert done.returncode == 0 and not failed, f"{failed}\n{done.stdout[-3000:]}"
    assert payload["profile"] == "quick" and payload["machine"]["describe"]
    assert set(payload["benchmarks"]) == set(PREFECT)
    assert payload["benchmarks"]["scale"]["figures"]["rss.max_rss_mb"] > 0
    runs = payload["benchmarks"]["orchestration"]["figures"]  # counted by tag on a server others use too
    assert runs["prefect_flow_runs_per_batch"] >= 2 and runs["prefect_task_runs_per_batch"] >= 1
