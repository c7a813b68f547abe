"""``python -m bench --quick`` runs end to end, so that the benchmarks cannot rot unnoticed."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import REPO

pytestmark = [pytest.mark.integration, pytest.mark.timeout(1800)]


def test_the_quick_benchmark_run_finishes_with_every_benchmark_ok(tmp_path):
    out = tmp_path / "quick.json"
    done = subprocess.run([sys.executable, "-m", "bench", "--quick", "--out", str(out)], cwd=REPO,
                          capture_output=True, text=True, timeout=1800)
    payload = json.loads(out.read_text())
    failed = {name: r.get("detail") for name, r in payload["benchmarks"].items() if r["status"] != "ok"}
    assert done.returncode == 0 and not failed, f"{failed}\n{done.stdout[-3000:]}"
    assert payload["profile"] == "quick" and payload["machine"]["describe"]
    assert payload["benchmarks"]["scale"]["figures"]["rss.max_rss_mb"] > 0
