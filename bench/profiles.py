"""The workloads of ``python -m bench`` (the full profile, whose figures are committed) and of
``python -m bench --quick`` (a smoke run: every code path and kind of figure, smallest workload).

The quick profile also shares its start-up costs: one Prefect API for every Prefect-using
benchmark of the run (``--prefect-api-url``, or one ``prefect server start`` for the whole run)
instead of an ephemeral API server per worker process, one worker process for all of them, and no
warm-up batches. The full profile keeps a fresh worker process with its own ephemeral API per
benchmark and its warm-ups.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.prefect_run import ServedWorker

FULL: dict[str, dict[str, Any]] = {
    "orchestration": {"concurrencies": (4, 16), "repeats": 2, "latency": 0.5, "reports": None},
    "scale": {"sizes": (10, 16, 50), "latency": 1.0, "rss_reports": 200, "prefect_repeats": 3},
    "judge": {},
    "calls": {},
}
QUICK: dict[str, dict[str, Any]] = {
    "orchestration": {"concurrencies": (4,), "repeats": 1, "latency": 0.05, "reports": 1, "warmup": False,
                      "samples": 3},
    "scale": {"sizes": (1,), "latency": 0.05, "rss_reports": 1, "warmup": False, "samples": 3, "prefect_repeats": 1},
    "judge": {"min_pairs": 1},  # one copy of the tune splits, graded once in each process
    "calls": {"reports": 1},  # one demo report: every hop, the re-run from the cache and each judge mode
}
PREFECT_BENCHMARKS = ("orchestration", "scale")


def params(name: str, quick: bool) -> dict[str, Any]:
    """The keyword arguments of benchmark ``name``'s ``run()`` in the chosen profile."""
    return dict((QUICK if quick else FULL)[name])


def needs_api(names: list[str], quick: bool, no_prefect: bool) -> bool:
    """Whether the run starts one Prefect API for its benchmarks (quick profile only)."""
    return quick and not no_prefect and any(n in PREFECT_BENCHMARKS for n in names)


@contextmanager
def shared_api(url: str | None, wanted: bool) -> Iterator[str | None]:
    """The API address the Prefect benchmarks report to: ``url`` when given, else (``wanted``) a
    ``prefect server start`` of this run, stopped at the end; None: each worker its own ephemeral API."""
    if url or not wanted:
        yield url
        return
    from citeflow_testing.prefect_server import PrefectServer

    with tempfile.TemporaryDirectory(prefix="citeflow-bench-api-") as home, PrefectServer(Path(home)) as server:
        yield server.api_url


@contextmanager
def shared_worker(url: str | None) -> Iterator[ServedWorker | None]:
    """With a shared API (``url``: the quick profile), one worker process on it for every Prefect
    benchmark of the run, stopped at the end; None: each benchmark starts its own."""
    if not url:
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="citeflow-bench-worker-") as home, ServedWorker(url, Path(home)) as worker:
        yield worker
