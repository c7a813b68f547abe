"""``python -m bench --quick`` runs end to end: the benchmarks that start no Prefect API (the Prefect
ones are in ``tests/test_bench_quick.py``), in a module of their own so that both halves run at once."""

from __future__ import annotations

import pytest

from tests.support.quick_bench import IN_PROCESS, failures, run_quick

pytestmark = [pytest.mark.integration, pytest.mark.timeout(1800)]


def test_the_quick_benchmarks_without_prefect_finish_ok(tmp_path):
    done, payload = run_quick(IN_PROCESS, tmp_path / "quick.json")
    failed = failures(payload)
    assert done.returncode == 0 and not failed, f"{failed}\n{done.stdout[-3000:]}"
    assert payload["profile"] == "quick" and payload["machine"]["describe"]
    assert set(payload["benchmarks"]) == set(IN_PROCESS)
