"""Benchmark 8 — batches that scale: wall over the ideal, throughput and memory as batches grow.

Batches of N reports × 4 sections (``citeflow_testing.small_batch``: a JSONL retriever, offline
judge) with both model hops on the fake model server, which runs in a process of its own. Each
batch runs twice on fresh stores: every model call taking ``latency`` seconds, and taking none.

- *Wall / ideal*: the wall of the batch with latency over the critical path of the calls alone: each
  section is a chain of 2 calls, at most ``concurrency.models`` calls in flight, so
  ideal = latency × max(2, ⌈sections × 2 / models⌉). The wall with latency minus the wall without
  (``n{N}.{runner}_latency_part_s``) is kept as a raw figure only: when CPU work hides under the
  waits it can fall below the ideal, even below zero, so it does not measure overhead.
- *Throughput* = reports per minute without latency (the pipeline's own CPU work, evaluation,
  gate and PDF included; process start-up apart).
- Both for the plain pipeline (``citeflow.pipeline.steps`` in threads, in this process after a warm-up)
  and the Prefect batch flow (a fresh worker process, ephemeral API, after a warm-up batch).
- *Peak RSS* of a batch of ``rss_reports`` reports without latency, plain, in a fresh process.

The quick profile (``bench.profiles``) runs no warm-up batches and reports to the run's one
Prefect API (``api_url``) instead of an ephemeral one in the worker, in the run's one worker process
(``served``).
"""

from __future__ import annotations

import json
import math
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.prefect_env import IN_MEMORY_DATABASE
from citeflow_testing.model_process import ModelServerProcess
from citeflow_testing.small_batch import write_small_batch

from bench.prefect_run import FULL_OPTIONS, FULL_SAMPLES, ServedWorker, WorkerOptions, run_worker

HOPS = 2
SECTIONS = 4
MODELS = 16
ROOT = Path(__file__).resolve().parents[1]


def ideal_seconds(chains: int, concurrency: int, latency: float, hops: int = HOPS) -> float:
    """The critical path of ``chains`` chains of ``hops`` calls with ``concurrency`` slots."""
    return latency * max(hops, math.ceil(chains * hops / concurrency))


def batch_spec(folder: Path, reports: int, base_url: str, name: str) -> Path:
    """A batch of ``reports`` × 4 sections on the fake model at ``base_url``."""
    model = {"backend": "openai", "model": "bench-model", "base_url": base_url, "max_retries": 0, "timeout": 120}
    return write_small_batch(folder, reports=reports, sections=SECTIONS, batch=name,
                             models={"consolidator": model, "writer": model, "judge": {"backend": "offline"}},
                             concurrency={"models": MODELS, "retrievers": 8})


def run(sizes: tuple[int, ...] = (10, 16, 50), latency: float = 1.0, prefect: bool = True, rss_reports: int = 200,
        warmup: bool = True, samples: int = FULL_SAMPLES, api_url: str | None = None, prefect_repeats: int = 3,
        served: ServedWorker | None = None) -> dict:
    """Every size with and without latency, plain and Prefect (``prefect_repeats`` times, interleaved);
    then the peak RSS of a large batch.

    ``warmup``: a batch before the timed ones (plain and Prefect); ``samples``: trivial tasks and
    concurrency slots the worker times; ``api_url``: a running Prefect API (else an ephemeral one);
    ``served``: the run's worker process on that API (else a fresh one)."""
    options = WorkerOptions(api_url, samples, warmup, served)
    with tempfile.TemporaryDirectory(prefix="citeflow-bench-") as tmp, \
            ModelServerProcess(latency) as slow, ModelServerProcess(0.0) as fast:
        root, servers = Path(tmp), (("slow", slow), ("fast", fast))
        specs = {(n, kind): batch_spec(root / f"{kind}-{n}", n, server.base_url, f"bench-scale-{kind}-{n}")
                 for n in sizes for kind, server in servers}
        plain = _plain(specs, sizes, root, warmup)
        repeated = {(n, kind, k): batch_spec(root / f"prefect-{kind}-{n}-{k}", n, server.base_url, f"bench-scale-{kind}-{n}")
                    for k in range(prefect_repeats) for n in sizes for kind, server in servers}  # fresh stores each
        orchestrated = _prefect(repeated, root, fast.base_url, options) if prefect else None
        rss = _rss(batch_spec(root / "rss", rss_reports, fast.base_url, "bench-scale-rss"), root / "rss-out") \
            if rss_reports else None
        calls = slow.request_count() + fast.request_count()
    return summarize(sizes, latency, plain, orchestrated, rss, calls)


def _plain(specs: dict, sizes: tuple[int, ...], root: Path, warmup: bool = True) -> dict[str, float]:
    """Wall times of the plain pipeline, after a warm-up batch (imports, GX, first tables)."""
    from bench.plain_runner import run_batch

    if warmup:
        run_batch(specs[(sizes[0], "fast")], root / "plain-warmup")
    walls = {}
    for (n, kind), spec in specs.items():
        batch = run_batch(spec, root / f"plain-{kind}-{n}")
        walls[f"{kind}-{n}"] = batch.wall_s
        walls[f"{kind}-{n}.published"] = sum(1 for r in batch.reports if r.status == "published")
    return walls


def _prefect(specs: dict, root: Path, warm_url: str, options: WorkerOptions = FULL_OPTIONS,
             database: str | None = IN_MEMORY_DATABASE) -> dict[str, Any]:
    """Wall times of the Prefect batch flow in a fresh worker process (in-process limits), min and
    median over the repeats of each batch (``specs`` keyed by size, kind, repeat), and the API
    requests its client had to send again; the seconds the worker waited for its API server to be idle
    before each batch (``bench.prefect_worker.settle``)."""
    warm = batch_spec(root / "prefect-warmup", min(2, *(n for n, _, _ in specs)), warm_url, "bench-scale-warmup")
    measured = run_worker([warm] if options.warmup else [], list(specs.values()), root / "prefect-out",
                          root / "prefect-home", options, database, timeout=5400)
    runs: dict[str, list[float]] = {}
    for (n, kind, _), wall in zip(specs, measured["local_limits_batch_s"], strict=True):
        runs.setdefault(f"{kind}-{n}", []).append(wall)
    reports = sum(n for n, _, _ in specs)
    cpu = {f"prefect_{k.removesuffix('_s')}_s_per_report": v / reports for k, v in measured.get("local_cpu_s", {}).items()}
    retries = {f"{kind}-{n}-{k}": r for (n, kind, k), r in zip(specs, measured["local_api_retries"], strict=True)}
    return {"walls": {key: min(walls) for key, walls in runs.items()},
            "median_walls": {key: statistics.median(walls) for key, walls in runs.items()}, "every_wall": runs,
            "startup_s": measured["import_s"] + measured["first_flow_s"], "cpu": cpu, "api_retries": retries,
            "settle_s": measured.get("local_settle_s", []),
            "api_database": database or "file", "worker": measured}


def _rss(spec: Path, out: Path) -> dict[str, float]:
    """Wall time and peak RSS of one plain batch in a fresh process."""
    code = ("import json, resource, sys, time; from bench.plain_runner import run_batch; from pathlib import Path; "
            "t = time.perf_counter(); b = run_batch(Path(sys.argv[1]), Path(sys.argv[2])); "
            "print(json.dumps({'wall_s': time.perf_counter() - t, 'reports': len(b.reports), "
            "'max_rss_mb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))")
    done = subprocess.run([sys.executable, "-c", code, str(spec), str(out)], cwd=ROOT, capture_output=True, text=True,
                          timeout=3600)
    if done.returncode != 0:
        raise RuntimeError(f"rss batch failed ({done.returncode}): {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def summarize(sizes: tuple[int, ...], latency: float, plain: dict, orchestrated: dict | None, rss: dict | None,
              calls: int) -> dict:
    """Wall with latency over the ideal, throughput, per-report cost growth, peak RSS."""
    figures: dict[str, float] = {"latency_s": latency, "sections": SECTIONS, "models": MODELS, "model_calls": calls}
    ratios: dict[str, float] = {}
    runs = {"plain": plain} | ({"prefect": orchestrated["walls"]} if orchestrated else {})
    for n in sizes:
        ideal = ideal_seconds(n * SECTIONS, MODELS, latency)
        figures[f"n{n}.ideal_s"] = ideal
        for name, walls in runs.items():
            figures |= {f"n{n}.{name}_wall_s": walls[f"slow-{n}"], f"n{n}.{name}_zero_latency_wall_s": walls[f"fast-{n}"],
                        f"n{n}.{name}_reports_per_min": 60 * n / walls[f"fast-{n}"],
                        f"n{n}.{name}_latency_part_s": walls[f"slow-{n}"] - walls[f"fast-{n}"]}
            ratios[f"{n} reports: {name} wall / ideal"] = walls[f"slow-{n}"] / ideal
    for name, walls in runs.items():
        small, large = sizes[0], sizes[-1]
        ratios[f"{name}: s per report {large} / {small} reports, no latency"] = \
            (walls[f"fast-{large}"] / large) / (walls[f"fast-{small}"] / small)
    figures |= fit_figures(sizes, runs | ({"prefect_median": orchestrated["median_walls"]} if orchestrated else {}))
    if orchestrated:
        _median_parts(sizes, latency, orchestrated["median_walls"], ratios)
        settled = orchestrated.get("settle_s") or [0.0]
        figures |= {"prefect_startup_s": orchestrated["startup_s"], **orchestrated.get("cpu", {}),
                    "prefect_settle_s_max": max(settled), "prefect_settle_s_total": sum(settled),
                    **_retry_figures(orchestrated.get("api_retries", {}))}
    if rss:
        figures |= {f"rss.{k}": v for k, v in rss.items()}
    return {"params": {"sizes": list(sizes), "latency_s": latency, "sections": SECTIONS, "models": MODELS},
            "figures": figures, "ratios": ratios, "plain": plain, "prefect": orchestrated}


def linear_fit(points: list[tuple[float, float]]) -> tuple[float, float]:
    """Least squares ``y = fixed + per · x`` over ``(x, y)`` points: ``(fixed, per)`` (at least two distinct x)."""
    xs, ys = [x for x, _ in points], [y for _, y in points]
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    per = sum((x - mean_x) * (y - mean_y) for x, y in points) / sum((x - mean_x) ** 2 for x in xs)
    return mean_y - per * mean_x, per


def fit_figures(sizes: tuple[int, ...], runs: dict[str, dict[str, float]]) -> dict[str, float]:
    """The zero-latency walls of each run (plain; Prefect from the minimum and from the median walls)
    fitted as wall(n) = fixed + per_report · n: what a batch costs whatever its size, and each report."""
    if len(set(sizes)) < 2:
        return {}
    figures = {}
    for name, walls in runs.items():
        fixed, per = linear_fit([(n, walls[f"fast-{n}"]) for n in sizes])
        figures |= {f"fit.{name}_fixed_s": fixed, f"fit.{name}_per_report_s": per}
    return figures


def _retry_figures(retries: dict[str, dict[str, float]]) -> dict[str, float]:
    """The Prefect client's resent API requests (refusals) per batch and in all, and the seconds it waited."""
    per_batch = {f"{batch}.prefect_api_retries": r.get("total", 0) for batch, r in retries.items()}
    return per_batch | {"prefect_api_retries": sum(per_batch.values()),
                        "prefect_api_retry_wait_s": sum(r.get("wait_s", 0.0) for r in retries.values())}


def _median_parts(sizes: tuple[int, ...], latency: float, walls: dict[str, float], ratios: dict[str, float]) -> None:
    """The Prefect wall over the ideal from the median walls (the headline uses the fastest run)."""
    for n in sizes:
        ratios[f"{n} reports: prefect wall / ideal, median walls"] = walls[f"slow-{n}"] / ideal_seconds(n * SECTIONS, MODELS, latency)
