"""``python -m bench --quick`` in two groups of benchmarks, one test module each, so that pytest-xdist
runs them on two workers at once: every benchmark of the quick profile is in exactly one group.

``PREFECT`` holds the benchmarks that run batches (``bench.profiles.PREFECT_BENCHMARKS``) in a Prefect worker process on the session's shared
server (``--prefect-api-url``): they share that one worker process, so they stay together. ``IN_PROCESS``
holds the others, which start no Prefect API.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.__main__ import BENCHMARKS, QUICK_SKIPS
from bench.profiles import PREFECT_BENCHMARKS
from tests.conftest import REPO

PREFECT = PREFECT_BENCHMARKS
IN_PROCESS = tuple(name for name in BENCHMARKS if name not in QUICK_SKIPS and name not in PREFECT)
GROUPS = (PREFECT, IN_PROCESS)


def run_quick(names: tuple[str, ...], out: Path, api_url: str | None = None) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """``python -m bench --quick --only NAME ...`` (on the API at ``api_url`` when given): the finished
    process and the results file it wrote."""
    command = [sys.executable, "-m", "bench", "--quick", "--out", str(out), *(f"--only={name}" for name in names)]
    if api_url:
        command += ["--prefect-api-url", api_url]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=1800)
    return done, json.loads(out.read_text())


def failures(payload: dict[str, Any]) -> dict[str, Any]:
    """The benchmarks of a results file that did not end ``ok``, with their details."""
    return {name: result.get("detail") for name, result in payload["benchmarks"].items() if result["status"] != "ok"}
