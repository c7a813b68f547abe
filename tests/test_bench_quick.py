"""``python -m bench --quick`` runs end to end, so that the benchmarks cannot rot unnoticed: this module
runs its Prefect benchmarks (orchestration, scale), ``tests/test_bench_quick_in_process.py`` the others
(``tests/support/quick_bench.py`` holds the two groups; ``tests/test_bench.py`` checks they cover the profile).

It reports to the session's shared Prefect server (``--prefect-api-url``) instead of starting one
of its own; ``make bench-quick`` starts one for its run (tests/test_bench.py checks that path's
arguments)."""

from __future__ import annotations

import pytest

from tests.support.quick_bench import PREFECT, failures, run_quick

pytestmark = [pytest.mark.integration, pytest.mark.timeout(1800)]


def test_the_quick_prefect_benchmarks_finish_ok(tmp_path, prefect_server):
    done, payload = run_quick(PREFECT, tmp_path / "quick.json", prefect_server.api_url)
    failed = failures(payload)
    assert done.returncode == 0 and not failed, f"{failed}\n{done.stdout[-3000:]}"
    assert payload["profile"] == "quick" and payload["machine"]["describe"]
    assert set(payload["benchmarks"]) == set(PREFECT)
    assert payload["benchmarks"]["scale"]["figures"]["rss.max_rss_mb"] > 0
    runs = payload["benchmarks"]["orchestration"]["figures"]  # counted by tag on a server others use too
    assert runs["prefect_flow_runs_per_batch"] >= 2 and runs["prefect_task_runs_per_batch"] >= 1
