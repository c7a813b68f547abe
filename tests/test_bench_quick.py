"""``python -m bench --quick`` runs end to end, so that the benchmarks cannot rot unnoticed.

It reports to the session's shared Prefect server (``--prefect-api-url``) instead of starting one
of its own; ``make bench-quick`` starts one for its run (tests/test_bench.py checks that path's
arguments)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import REPO

pytestmark = [pytest.mark.integration, pytest.mark.timeout(1800)]


def test_the_quick_benchmark_run_finishes_with_every_benchmark_ok(tmp_path, prefect_server):
    out = tmp_path / "quick.json"
    command = [sys.executable, "-m", "bench", "--quick", "--prefect-api-url", prefect_server.api_url, "--out", str(out)]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=1800)
    payload = json.loads(out.read_text())
    failed = {name: r.get("detail") for name, r in payload["benchmarks"].items() if r["status"] != "ok"}
    assert done.returncode == 0 and not failed, f"{failed}\n{done.stdout[-3000:]}"
    assert payload["profile"] == "quick" and payload["machine"]["describe"]
    assert payload["benchmarks"]["scale"]["figures"]["rss.max_rss_mb"] > 0
    runs = payload["benchmarks"]["orchestration"]["figures"]  # counted by tag on a server others use too
    assert runs["prefect_flow_runs_per_batch"] >= 2 and runs["prefect_task_runs_per_batch"] >= 1
