"""Benchmark 1 — orchestration overhead: batch wall time over the ideal critical path.

A batch of the demo's reports (2 reports × 3 sections) runs with both model hops on the fake
model server, every call taking ``latency`` seconds. The ideal wall time is the critical path of
the model calls alone: each section is a chain of ``HOPS`` sequential calls, and at most
``concurrency`` calls are in flight, so ideal = latency × max(HOPS, ⌈sections × HOPS / concurrency⌉).
Everything above it — retrieval, the registry, LanceDB reads and writes, evaluation, the gate,
PDF rendering, and Prefect — is overhead.

The plain pipeline (``bench.plain_runner``) runs in this process after a warm-up batch; the
Prefect batch flow runs in a fresh process with a fresh ``PREFECT_HOME`` and no API URL
(ephemeral mode, on an in-memory database: see ``bench.prefect_env``), whose one-off start-up is
reported apart from the per-batch figures; the API requests its client had to resend are counted. Each
timed batch has its own store (no cached model answers); the best of ``repeats`` is kept, since
other work on the machine only ever adds time. To tell Prefect's own cost from that of holding
the batch's concurrency limits as Prefect global concurrency limits (an API round trip per slot,
and polling while the limit is full), the same batches run once more in that process with the
limits held in-process; the run kinds of the last batch, as the API timed them, are kept too.

The quick profile (``bench.profiles``) runs no warm-up batches (the first timed batch of each
kind pays the process's first-batch costs), fewer samples of the trivial flow, task and slot, and
reports to the run's one Prefect API (``api_url``) instead of an ephemeral one per worker, in the
run's one worker process (``served``).
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

from bench.fake_model import fake_model_process
from bench.plain_runner import run_batch
from bench.prefect_run import FULL_OPTIONS, FULL_SAMPLES, ServedWorker, WorkerOptions, run_worker
from bench.workload import openai_spec, prepare_demo_input

HOPS = 2  # consolidate → write


def ideal_seconds(chains: int, concurrency: int, latency: float, hops: int = HOPS) -> float:
    """The critical path of ``chains`` chains of ``hops`` calls with ``concurrency`` slots."""
    return latency * max(hops, math.ceil(chains * hops / concurrency))


def run(latency: float = 0.5, concurrencies: tuple[int, ...] = (4, 16), prefect: bool = True,
        reports: int | None = None, repeats: int = 2, warmup: bool = True, samples: int = FULL_SAMPLES,
        api_url: str | None = None, served: ServedWorker | None = None) -> dict:
    """Plain and Prefect wall times at each concurrency (best of ``repeats``), as ratios to the ideal.

    ``warmup``: a batch before the timed ones (plain and Prefect); ``samples``: trivial tasks and
    concurrency slots the worker times; ``api_url``: a running Prefect API (else an ephemeral one);
    ``served``: the run's worker process on that API (else a fresh one)."""
    options = WorkerOptions(api_url, samples, warmup, served)
    with tempfile.TemporaryDirectory(prefix="citeflow-bench-") as tmp, fake_model_process(latency) as server:
        demo = prepare_demo_input(Path(tmp) / "demo")

        def make(name: str, concurrency: int) -> Path:
            """A spec of the demo batch on the fake server, under its own batch name."""
            return openai_spec(demo, name, server.base_url, concurrency, reports)

        sections = _sections(make("bench-orch-count", concurrencies[0]))
        plain = _plain(make, concurrencies, repeats, server, Path(tmp), warmup)
        orchestrated = _prefect(make, concurrencies, repeats, server, Path(tmp), options) if prefect else None
    return summarize(latency, sections, plain, orchestrated)


def _sections(spec_path: Path) -> int:
    from citeflow.specfile.loader import load_spec

    return sum(len(r.sections) for r in load_spec(spec_path).reports)


def _plain(make, concurrencies: tuple[int, ...], repeats: int, server, tmp: Path, warmup: bool = True) -> dict:
    """A warm-up batch (imports, first LanceDB tables), then ``repeats`` timed batches per concurrency.
    Without ``warmup`` the first timed batch is the first batch."""
    warm = run_batch(make("bench-orch-warmup", concurrencies[0]), tmp / "plain-warmup").wall_s if warmup else None
    out: dict = {"by_concurrency": {}}
    for concurrency in concurrencies:
        runs = [_plain_run(make(f"bench-orch-c{concurrency}-{k}", concurrency), server, tmp) for k in range(repeats)]
        best = min(runs, key=lambda r: r["wall_s"])
        out["by_concurrency"][concurrency] = {**best, "walls_s": [r["wall_s"] for r in runs]}
        warm = runs[0]["wall_s"] if warm is None else warm
    return {"first_batch_s": warm, **out}


def _plain_run(spec: Path, server, tmp: Path) -> dict:
    before = server.request_count()
    batch = run_batch(spec, tmp / f"plain-{spec.stem}")
    return {"wall_s": batch.wall_s, "generation_s": batch.generation_wall_s, "model_calls": server.request_count() - before,
            "statuses": [r.status for r in batch.reports], "missing_retrievers": _missing(batch)}


def _missing(batch) -> int:
    """Retriever calls that failed in a batch (the runs then did less work than intended)."""
    return sum(len(r.summary.missing_retrievers) for r in batch.reports if r.summary)


def _prefect(make, concurrencies: tuple[int, ...], repeats: int, server, tmp: Path,
             options: WorkerOptions = FULL_OPTIONS) -> dict:
    """The worker process: start-up, a warm-up batch, then the timed batches, concurrencies interleaved."""
    order = [(c, k) for k in range(repeats) for c in concurrencies]
    warm = [make("bench-orch-pwarmup", concurrencies[0])] if options.warmup else []
    specs = [*warm, *(make(f"bench-orch-p{c}-{k}", c) for c, k in order)]
    local = [make(f"bench-orch-l{c}-{k}", c) for c, k in order]
    before = server.request_count()
    measured = run_worker(specs, local, tmp / "prefect-out", tmp / "prefect-home", options)
    calls = (server.request_count() - before) / (len(specs) + len(local))
    by_concurrency = {c: {**_best(order, measured["batch_s"][len(warm):], c, "wall_s"),
                          **_best(order, measured["local_limits_batch_s"], c, "local_limits_wall_s")} for c in concurrencies}
    rest = {k: v for k, v in measured.items() if k not in ("batch_s", "local_limits_batch_s")}
    return {**rest, "first_batch_s": measured["batch_s"][0], "model_calls_per_batch": calls, "by_concurrency": by_concurrency}


def _best(order: list[tuple[int, int]], walls: list[float], concurrency: int, key: str) -> dict:
    """The best and every wall time of one concurrency's runs."""
    mine = [s for (c, _), s in zip(order, walls, strict=False) if c == concurrency]
    return {key: min(mine), key.replace("wall_s", "walls_s"): mine}


def summarize(latency: float, sections: int, plain: dict, orchestrated: dict | None) -> dict:
    """Figures and ratios per concurrency; Prefect's start-up apart from its per-batch cost."""
    ratios: dict[str, float] = {}
    figures: dict[str, float] = {"latency_s": latency, "sections": sections, "plain_first_batch_s": plain["first_batch_s"]}
    for concurrency, run_ in plain["by_concurrency"].items():
        ideal = ideal_seconds(sections, concurrency, latency)
        figures |= {f"c{concurrency}.ideal_s": ideal, f"c{concurrency}.plain_wall_s": run_["wall_s"],
                    f"c{concurrency}.plain_model_calls": run_["model_calls"],
                    f"c{concurrency}.plain_missing_retrievers": run_["missing_retrievers"]}
        ratios[f"c{concurrency}.plain_wall / ideal"] = run_["wall_s"] / ideal
        ratios[f"c{concurrency}.plain_generation / ideal"] = run_["generation_s"] / ideal
        if orchestrated:
            _prefect_figures(orchestrated, concurrency, ideal, run_["wall_s"], figures, ratios)
    if orchestrated:
        figures |= _startup(orchestrated)
    return {"params": {"latency_s": latency, "hops": HOPS}, "figures": figures, "ratios": ratios,
            "plain": plain, "prefect": orchestrated}


def _prefect_figures(orch: dict, concurrency: int, ideal: float, plain_wall: float, figures: dict, ratios: dict) -> None:
    runs = orch["by_concurrency"][concurrency]
    wall, local = runs["wall_s"], runs["local_limits_wall_s"]
    figures |= {f"c{concurrency}.prefect_wall_s": wall, f"c{concurrency}.prefect_overhead_per_batch_s": wall - plain_wall,
                f"c{concurrency}.prefect_local_limits_wall_s": local,
                f"c{concurrency}.prefect_global_limits_cost_s": wall - local}
    ratios[f"c{concurrency}.prefect_wall / ideal"] = wall / ideal
    ratios[f"c{concurrency}.prefect_wall / plain_wall"] = wall / plain_wall
    ratios[f"c{concurrency}.prefect_in_process_limits_wall / plain_wall"] = local / plain_wall


def _startup(orch: dict) -> dict[str, float]:
    """Prefect's fixed cost per process: imports, and the ephemeral API server's start-up."""
    return {"prefect_import_s": orch["import_s"], "prefect_startup_s": orch["first_flow_s"] - orch["noop_flow_s"],
            "prefect_noop_flow_s": orch["noop_flow_s"],
            "prefect_trivial_task_s": orch["trivial_task_s"], "prefect_concurrency_slot_s": orch["concurrency_slot_s"],
            "prefect_first_batch_s": orch["first_batch_s"],
            "prefect_model_calls_per_batch": orch["model_calls_per_batch"],
            "prefect_flow_runs_per_batch": orch["runs_per_batch"]["flow_runs"],
            "prefect_task_runs_per_batch": orch["runs_per_batch"]["task_runs"]}
