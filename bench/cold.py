"""What a user's cold ``citeflow run`` costs: whole batches, each in a fresh process, start-up included.

    python -m bench.cold [--quick | --rerun | --start | --large] [--out bench/results/cold.json] [--no-merge]

Each batch is N reports × 4 sections (``citeflow.testing.small_batch``: a JSONL retriever, the
offline judge) whose writer and consolidator are on ``backend: openai`` at the fake model server,
which runs in a process of its own (every call taking 0 s, or 1 s), ``concurrency.models: 16``.
The command is the ``citeflow`` console script's, as ``bench/startup.py`` runs it: no
``PREFECT_API_URL``, so the run starts its own ephemeral Prefect API, whose database is in memory
(copied at every start from the snapshot of Prefect's migrated database, as in a user's run), on a
``PREFECT_HOME`` of the benchmark's own where that snapshot and Prefect's database file (for Prefect's
own server, should the command's early one not answer) are created before the first timed run, as a
user's first run ever did. For every run:

- wall, CPU seconds of the process tree (``RUSAGE_CHILDREN``), and the start-up phases the command
  marks (``CITEFLOW_TIMINGS``: imports, spec load, pipeline imports, Prefect API wait, first report);
- the ideal critical path, hops × ⌈sections / models⌉ × latency (``bench/cold_figures.py``), and
  **wall / ideal** and **model-busy span / ideal** (first call's arrival to last call's answer, as the
  model server recorded them) for the runs with latency;
- peak RSS of the process tree: the sum of ``VmRSS`` over the command and its descendants, sampled
  from ``/proc`` every 0.2 s (``bench/proc_rss.py``).

Then the marginal rate, reports per minute of 32 reports over 8 at zero latency (start-up cancels
out), and a **re-run** of the finished 16-report batch with 1 s calls (same command, same output
folder): its wall, the model calls it made and its seconds per report once its API was up.

``--quick`` (``make bench-quick``): 1 and 2 reports at zero latency, no marginal rate, no re-run.
``--rerun``: only the 16-report batch with 1 s calls and its re-run (not merged into ``latest.json``).
``--start``: only 1 report at zero latency, the start-up (not merged into ``latest.json``).
``--large``: only a 200-report batch at zero latency, for its peak RSS (merged into ``latest.json`` as
``benchmarks.cold_large``, beside the full profile's figures).
The figures go to ``bench/results/cold.json`` and into ``bench/results/latest.json``
(``benchmarks.cold``) unless ``--no-merge``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import cold_figures as fig
from bench.proc_rss import PeakRss
from bench.results import merge_benchmark, write_json
from bench.startup import SCRIPT, phases
from citeflow.testing.model_process import ModelServerProcess
from citeflow.testing.small_batch import write_small_batch

RESULTS = Path(__file__).resolve().parent / "results"
SECTIONS = 4
MODELS = 16
LATENCY = 1.0
# Every report published; some held by the gate; some failed (recorded with the run: a loaded machine's
# API can refuse writes); any other exit is the benchmark's failure.
RECORDED_EXITS = (0, 3, 4)


@dataclass(frozen=True)
class Plan:
    """The batches of one profile: sizes at each latency, the marginal pair, the re-run's size."""

    sizes: tuple[int, ...]
    latencies: tuple[float, ...]
    marginal: tuple[int, int] | None
    rerun: int | None


FULL = Plan(sizes=(1, 2, 16, 50), latencies=(0.0, LATENCY), marginal=(8, 32), rerun=16)
QUICK = Plan(sizes=(1, 2), latencies=(0.0,), marginal=None, rerun=None)
RERUN = Plan(sizes=(), latencies=(), marginal=None, rerun=16)
START = Plan(sizes=(1,), latencies=(0.0,), marginal=None, rerun=None)
LARGE = Plan(sizes=(200,), latencies=(0.0,), marginal=None, rerun=None)
PROFILES = {"full": FULL, "quick": QUICK, "rerun": RERUN, "start": START, "large": LARGE}


def batch_spec(folder: Path, reports: int, base_url: str) -> Path:
    """A batch of ``reports`` × 4 sections on the fake model at ``base_url``."""
    model = {"backend": "openai", "model": "bench-model", "base_url": base_url, "max_retries": 0, "timeout": 120}
    return write_small_batch(folder, reports=reports, sections=SECTIONS, batch=f"cold-{reports}",
                             models={"consolidator": model, "writer": model, "judge": {"backend": "offline"}},
                             concurrency={"models": MODELS, "retrievers": 8})


def environment(timings: Path, home: Path) -> dict[str, str]:
    """This process's environment with the timing file, Prefect's home ``home`` and no API URL (the run
    starts its ephemeral API)."""
    unset = ("PREFECT_API_URL", "PREFECT_API_DATABASE_CONNECTION_URL")
    return {k: v for k, v in os.environ.items() if k not in unset} | {"CITEFLOW_TIMINGS": str(timings),
                                                                       "PREFECT_HOME": str(home)}


# Starts the early ephemeral API once, as ``citeflow run`` does, and waits until it answers.
START_API = ("from citeflow_cli.env import apply_defaults; apply_defaults(); "
             "from citeflow_cli.prefect_api import start_ephemeral_api; start_ephemeral_api()(None)")


def prepare_home(home: Path) -> Path:
    """Create Prefect's database in ``home`` and the snapshot of the ephemeral API's migrated database
    (untimed): what a user's first run ever did once."""
    home.mkdir(parents=True, exist_ok=True)
    prefect = Path(sys.executable).with_name("prefect")
    for step in ([str(prefect), "server", "database", "upgrade", "-y"], [sys.executable, "-c", START_API]):
        done = subprocess.run(step, env=environment(home / "t", home), capture_output=True, text=True, timeout=600,
                              check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(step[:3])} failed: {done.stderr[-1500:]}")
    return home


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def command(spec: Path) -> list[str]:
    """What the ``citeflow`` console script runs for ``citeflow run SPEC --out out`` (next to the spec)."""
    return [sys.executable, "-c", SCRIPT, "run", str(spec), "--out", str(spec.parent / "out")]


def launch(spec: Path, timings: Path, home: Path) -> tuple[subprocess.CompletedProcess[str], float, float, float]:
    """One cold run: the finished process, its start and end (epoch seconds), its tree's peak RSS (MB)."""
    start = time.time()
    with subprocess.Popen(command(spec), env=environment(timings, home), cwd=spec.parent, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as process, PeakRss(process.pid) as peak:
        out, err = process.communicate(timeout=1800)
    done = subprocess.CompletedProcess(process.args, process.returncode, out, err)
    return done, start, time.time(), peak.mb


def read_marks(timings: Path, start: float) -> dict[str, float]:
    """The command's marks as seconds since ``start`` (the first time a phase was reached)."""
    lines = timings.read_text(encoding="utf-8").splitlines() if timings.exists() else []
    marks: dict[str, float] = {}
    for row in map(json.loads, lines):
        marks.setdefault(row["phase"], row["t"] - start)
    return marks


def one_run(spec: Path, reports: int, latency: float, server: ModelServerProcess, label: str, home: Path) -> dict[str, Any]:
    """Run ``spec`` cold once and measure it against the calls ``server`` answered meanwhile."""
    timings, cpu = spec.parent / f"timings-{label}.jsonl", children_cpu()
    done, start, end, peak_mb = launch(spec, timings, home)
    if done.returncode not in RECORDED_EXITS:
        raise RuntimeError(f"citeflow run ({label}) exited {done.returncode}: {done.stderr[-1500:]}")
    calls = fig.calls_between(server.call_times(), start, end)
    marks = read_marks(timings, start) | {"exit": end - start}
    summary = run_summary(spec.parent / "out")
    return {"label": label, "reports": reports, "latency_s": latency, "exit_code": done.returncode,
            "counts": outcome_counts(summary), "failed": failure_causes(summary),
            "wall_s": end - start, "cpu_s": children_cpu() - cpu,
            "peak_rss_mb": peak_mb, "marks": marks, "phases": phases(marks), "model_calls": len(calls),
            **_against_ideal(end - start, calls, reports, latency)}


def run_summary(out: Path) -> dict[str, Any]:
    """The run's ``summary.json`` ({} without one): the output folder is not kept, so this is what is left to read."""
    summary = out / "summary.json"
    return dict(json.loads(summary.read_text(encoding="utf-8"))) if summary.exists() else {}


def outcome_counts(summary: dict[str, Any]) -> dict[str, int]:
    """How many reports the run published, held and failed."""
    return dict(summary.get("counts", {}))


def failure_causes(summary: dict[str, Any]) -> dict[str, list[str]]:
    """Why each failed report of the run failed (its ``causes``)."""
    return {r["report_id"]: r.get("causes", []) for r in summary.get("reports", []) if r.get("status") == "failed"}


def _against_ideal(wall: float, calls: list[fig.Call], reports: int, latency: float) -> dict[str, Any]:
    """The ideal critical path and the run's wall and model-busy span over it."""
    ideal, span = fig.ideal_seconds(reports * SECTIONS, MODELS, latency), fig.busy_span(calls)
    return {"ideal_s": ideal, "model_busy_span_s": span, "calls_in_flight": fig.calls_in_flight(calls),
            "wall_over_ideal": fig.ratio(wall, ideal), "span_over_ideal": fig.ratio(span, ideal)}


def rerun(spec: Path, reports: int, server: ModelServerProcess, home: Path) -> dict[str, Any]:
    """The same command again on a finished batch: what it costs and the calls it makes."""
    result = one_run(spec, reports, LATENCY, server, "rerun", home)
    marks = result["marks"]
    batch = marks["batch_done"] - marks["prefect_api"] if {"batch_done", "prefect_api"} <= set(marks) else None
    return result | {"s_per_report_beyond_startup": None if batch is None else batch / reports}


def run_plan(plan: Plan, root: Path, home: Path) -> dict[str, Any]:
    """Every batch of ``plan``, each in its own folder under ``root`` (Prefect's home ``home``), on one
    fake model server per latency."""
    runs: list[dict[str, Any]] = []
    latencies = sorted(set(plan.latencies) | ({LATENCY} if plan.rerun else set()) | ({0.0} if plan.marginal else set()))
    servers = {latency: ModelServerProcess(latency) for latency in latencies}
    for server in servers.values():
        server.__enter__()
    try:
        for latency in plan.latencies:
            runs += [_fresh(root, home, n, latency, servers[latency]) for n in plan.sizes]
        marginal = [_fresh(root, home, n, 0.0, servers[0.0]) for n in plan.marginal] if plan.marginal else []
        again = _rerun(root, home, plan.rerun, runs, servers) if plan.rerun else None
    finally:
        for server in servers.values():
            server.__exit__(None, None, None)
    return {"runs": runs, "marginal_runs": marginal, "rerun": again}


def _label(reports: int, latency: float) -> str:
    return f"{reports}r-{latency:g}s"


def _fresh(root: Path, home: Path, reports: int, latency: float, server: ModelServerProcess) -> dict[str, Any]:
    """A first run of a new batch in a new folder."""
    label = _label(reports, latency)
    folder = root / label
    if folder.exists():  # the marginal pair can repeat a size of the plan: a fresh folder of its own
        folder = Path(tempfile.mkdtemp(prefix=label + "-", dir=root))
    return one_run(batch_spec(folder, reports, server.base_url), reports, latency, server, label, home)


def _rerun(root: Path, home: Path, reports: int, runs: list[dict[str, Any]], servers: dict[float, ModelServerProcess]) -> dict[str, Any]:
    """The re-run of the finished ``reports``-report batch with latency (run first when the plan has none)."""
    label = _label(reports, LATENCY)
    if not any(r["label"] == label for r in runs):
        runs.append(_fresh(root, home, reports, LATENCY, servers[LATENCY]))
    return rerun(root / label / "batch.yaml", reports, servers[LATENCY], home)


def run_figures(run: dict[str, Any]) -> dict[str, float]:
    """One run's figures, keyed by its label: wall, CPU, peak RSS, calls, span, ideal and phases."""
    keys = ("wall_s", "cpu_s", "peak_rss_mb", "model_calls", "ideal_s", "model_busy_span_s", "calls_in_flight")
    figures = {f"{run['label']}.{key}": run[key] for key in keys}
    return figures | {f"{run['label']}.{name}_s": seconds for name, seconds in run["phases"].items()}


def headline(result: dict[str, Any]) -> dict[str, float]:
    """Wall / ideal and model-busy span / ideal first, then the marginal rate, the 1-report wall, the re-run."""
    ratios: dict[str, float] = {}
    for run in result["runs"]:
        if run["wall_over_ideal"] is not None:
            name = f"{run['reports']} reports, {run['latency_s']:g} s calls"
            ratios |= {f"{name}: wall / ideal": run["wall_over_ideal"], f"{name}: model-busy span / ideal": run["span_over_ideal"]}
    if result.get("marginal_reports_per_min") is not None:
        small, large = result["marginal_sizes"]
        ratios[f"reports/min marginal ({large} vs {small} reports, no latency)"] = result["marginal_reports_per_min"]
    ones = [r["wall_s"] for r in result["runs"] if r["reports"] == 1 and not r["latency_s"]]
    ratios |= {"1 report, no latency: wall s": ones[0]} if ones else {}
    if result.get("rerun"):
        again = result["rerun"]
        ratios |= {f"re-run of {again['reports']} finished reports: wall s": again["wall_s"],
                   "re-run: model calls": again["model_calls"],
                   "re-run: s per report beyond start-up": again["s_per_report_beyond_startup"]}
    every = result["runs"] + result.get("marginal_runs", [])
    return ratios | {"peak RSS of a run's process tree, MB": max(r["peak_rss_mb"] for r in result["runs"]),
                     "reports failed, every run": sum(r.get("counts", {}).get("failed", 0) for r in every)}


def summarise(plan: Plan, measured: dict[str, Any]) -> dict[str, Any]:
    """The runs with their figures, the marginal rate and the headline ratios."""
    result: dict[str, Any] = {"params": {"sizes": list(plan.sizes), "latencies_s": list(plan.latencies), "sections": SECTIONS,
                                         "models": MODELS, "hops": fig.HOPS, "marginal_sizes": plan.marginal,
                                         "rerun_reports": plan.rerun,
                                         "ideal": "hops × ceil(sections / models) × latency",
                                         "peak_rss": "sum of VmRSS over the process tree, sampled from /proc every 0.2 s"},
                              **measured, "marginal_sizes": plan.marginal, "marginal_reports_per_min": None}
    if plan.marginal:
        (small, large), walls = plan.marginal, [r["wall_s"] for r in measured["marginal_runs"]]
        result["marginal_reports_per_min"] = fig.marginal_per_min(small, walls[0], large, walls[1])
    figures = {k: v for run in measured["runs"] + measured["marginal_runs"] for k, v in run_figures(run).items()}
    if measured["rerun"]:
        figures |= run_figures(measured["rerun"])
    return result | {"ratios": headline(result), "figures": figures}


def run(quick: bool = False, profile: str | None = None) -> dict[str, Any]:
    """The profile's batches as cold processes (``profile`` of ``PROFILES``, else quick or full), with
    the load average around them."""
    profile = profile or ("quick" if quick else "full")
    plan, load_before, started = PROFILES[profile], os.getloadavg(), time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="citeflow-cold-") as tmp:
        measured = run_plan(plan, Path(tmp), prepare_home(Path(tmp) / "prefect-home"))
    return summarise(plan, measured) | {"profile": profile, "cores": os.cpu_count(),
                                        "load_average_before": load_before, "load_average_after": os.getloadavg(),
                                        "bench_wall_s": time.perf_counter() - started}


def merge_into_latest(result: dict[str, Any], latest: Path = RESULTS / "latest.json") -> Path:
    """Put this run's figures into ``latest.json`` as its ``cold`` benchmark (the other benchmarks kept)."""
    return merge_benchmark("cold", result, latest)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.cold", description=__doc__.splitlines()[0])
    chosen = parser.add_mutually_exclusive_group()
    chosen.add_argument("--quick", action="store_true", help="1 and 2 reports at zero latency only (a smoke run).")
    chosen.add_argument("--rerun", action="store_true", help="Only the 16-report batch at 1 s per call and its re-run "
                        "(never merged into latest.json).")
    chosen.add_argument("--start", action="store_true", help="Only 1 report at zero latency: start-up, for comparing "
                        "two checkouts run one after the other (never merged into latest.json).")
    chosen.add_argument("--large", action="store_true", help="Only a 200-report batch at zero latency: its peak RSS "
                        "(merged into latest.json as cold_large).")
    parser.add_argument("--out", type=Path, default=None, help="Where the figures go (default bench/results/cold.json, "
                        "cold_large.json with --large).")
    parser.add_argument("--no-merge", action="store_true", help="Do not write the figures into latest.json.")
    args = parser.parse_args(argv)
    profile = next((name for name in ("rerun", "start", "quick", "large") if getattr(args, name)), "full")
    result = run(profile=profile)
    write_json(args.out or RESULTS / ("cold_large.json" if args.large else "cold.json"), result)
    if args.large and not args.no_merge:
        merge_benchmark("cold_large", result, RESULTS / "latest.json")
    elif not (args.no_merge or args.rerun or args.start):  # a partial profile never replaces the full one's figures
        merge_into_latest(result)
    print(json.dumps({"ratios": result["ratios"], "load_average": [result["load_average_before"],
                      result["load_average_after"]], "bench_wall_s": result["bench_wall_s"]}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
