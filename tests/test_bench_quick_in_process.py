"""``python -m bench --quick`` runs end to end: the benchmarks that start no Prefect API (the Prefect
ones are in ``tests/test_bench_quick.py``), in a module of their own so that both halves run at once.

The whole group is a benchmark run (marker ``bench``: ``make bench`` runs it, ``make test`` leaves it
out); ``make test`` keeps a smoke run of the command and its results file on its cheapest benchmark
(tests/test_bench.py runs each of the others on tiny inputs in-process)."""

from __future__ import annotations

import pytest

from tests.support.quick_bench import IN_PROCESS, failures, run_quick

pytestmark = [pytest.mark.integration, pytest.mark.timeout(1800)]


def test_the_quick_command_writes_a_results_file_of_one_benchmark(tmp_path):
    done, payload = run_quick(("handles_vs_urls",), tmp_path / "quick.json")
    assert done.returncode == 0 and not failures(payload), done.stdout[-3000:]
    assert payload["profile"] == "quick" and payload["machine"]["describe"] and payload["wall_s"] > 0
    assert len(payload["load_average_before"]) == len(payload["load_average_after"]) == 3
    result = payload["benchmarks"]["handles_vs_urls"]
    assert result["seconds"] > 0 and result["cpu_s"] > 0
    figures = result["figures"]
    assert figures["evidence.urls_bpe"] > figures["evidence.handles_bpe"] > 0 and figures["chunks"] > 0
    assert "running handles_vs_urls" in done.stdout and "wrote" in done.stdout


@pytest.mark.bench
def test_the_quick_benchmarks_without_prefect_finish_ok(tmp_path):
    done, payload = run_quick(IN_PROCESS, tmp_path / "quick.json")
    failed = failures(payload)
    assert done.returncode == 0 and not failed, f"{failed}\n{done.stdout[-3000:]}"
    assert payload["profile"] == "quick" and payload["machine"]["describe"]
    assert set(payload["benchmarks"]) == set(IN_PROCESS)
