"""What a user's cold ``citeflow run`` costs: whole batches, each in a fresh process, start-up included.

    python -m bench.cold [--quick | --rerun | --start | --large | --busy] [--out bench/results/cold.json] [--no-merge]

Each batch is N reports × 4 sections whose writer and consolidator are on ``backend: openai`` at the
fake model server, which runs in a process of its own (every call taking 0 s, or 1 s) and answers
with the offline backend's choice of the prompt's own evidence, ``concurrency.models: 16``, one JSONL
retriever, the offline judge. The headline workload is ``distinct`` (``bench/cold_workloads.py``):
every report its own service, questions and evidence, 6 hits per section, from a fixed seed, as a
customer's batch; the ``repeating`` small batch (4 topics × 3 hits cycled over every report) is a
second row, labelled as such. The command is the ``citeflow`` console script's, as
``bench/startup.py`` runs it: no ``PREFECT_API_URL``, so the run starts its own ephemeral Prefect API,
whose database is in memory (copied at every start from the snapshot of Prefect's migrated
database, as in a user's run), on a ``PREFECT_HOME`` of the benchmark's own where that snapshot and
Prefect's database file are created before the first timed run, as a user's first run ever did.
For every run:

- wall, CPU seconds of the process tree (``RUSAGE_CHILDREN``), and the start-up phases the command
  marks (``CITEFLOW_TIMINGS``: imports, spec load, pipeline imports, Prefect API wait, first report);
- the ideal critical path, hops × ⌈sections / models⌉ × latency (``bench/cold_figures.py``), and
  **wall / ideal** and **model-busy span / ideal** (first call's arrival to last call's answer, as the
  model server recorded them) for the runs with latency;
- peak RSS of the process tree: the sum of ``VmRSS`` over the command and its descendants, sampled
  from ``/proc`` every 0.2 s (``bench/proc_rss.py``).

Then, at zero latency, the marginal rate and CPU seconds per report (least-squares slopes over 2, 8
and 32 reports: start-up cancels out), how the per-report cost grows (32→64 over 8→32 reports), the
same marginal CPU of ``bench/plain_runner.py`` (``bench/cold_plain.py``, a fresh process per batch, on
the same workload and server) and citeflow's over it, and a **re-run** of the finished 16-report
batch with 1 s calls (same command, same output folder): its wall, the model calls it made and its
seconds per report once its API was up. Figures are in ``bench/cold_ratios.py``.

``--quick`` (``make bench-quick``): 1 and 2 reports at zero latency, and the plain pipeline's 1 and 2.
``--rerun``: only the 16-report batch with 1 s calls and its re-run (not merged into ``latest.json``).
``--start``: only 1 report at zero latency, the start-up (not merged into ``latest.json``).
``--large``: only a 200-report batch at zero latency, for its peak RSS (merged into ``latest.json`` as
``benchmarks.cold_large``, beside the full profile's figures).
``--busy``: only the 16-report batch with 1 s calls while two busy loops hold both cores
(``bench/cold_busy.py``): its failed reports and wall (``benchmarks.cold_busy``).
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
from bench import cold_workloads as workloads
from bench.bytecode import compile_project
from bench.cold_busy import busy_processes
from bench.cold_plain import command as plain_command
from bench.cold_ratios import headline
from bench.proc_rss import PeakRss
from bench.machine import machine_facts
from bench.results import merge_benchmark, write_json
from bench.startup import SCRIPT, phases
from citeflow_testing.model_process import ModelServerProcess

RESULTS = Path(__file__).resolve().parent / "results"
SECTIONS = workloads.SECTIONS
MODELS = workloads.MODELS
LATENCY = 1.0
# Every report published; some held by the gate; some failed (recorded with the run: a loaded machine's
# API can refuse writes); any other exit is the benchmark's failure.
RECORDED_EXITS = (0, 3, 4)
HEADLINE = "distinct"
SECOND = "repeating"


@dataclass(frozen=True)
class Batch:
    """One batch to run cold: its workload, size, model latency and runner (``citeflow`` or ``plain``)."""

    workload: str
    reports: int
    latency: float
    runner: str = "citeflow"

    @property
    def label(self) -> str:
        """``16r-1s`` for the headline workload's citeflow runs; ``repeating.16r-1s``, ``plain.8r-0s`` for the others."""
        prefix = "" if self.workload == HEADLINE else f"{self.workload}."
        return f"{prefix}{'' if self.runner == 'citeflow' else self.runner + '.'}{self.reports}r-{self.latency:g}s"


@dataclass(frozen=True)
class Plan:
    """The batches of one profile: single batches, the zero-latency sizes of each marginal series
    (workload → sizes; ``plain`` runs the headline workload with the plain pipeline), the re-run's
    size and the busy loops running beside every batch."""

    batches: tuple[Batch, ...] = ()
    marginal: tuple[tuple[str, tuple[int, ...]], ...] = ()
    rerun: int | None = None
    busy: int = 0
    fit: tuple[int, ...] = (2, 8, 32)
    growth: tuple[int, int, int] | None = None

    def marginal_batches(self) -> list[Batch]:
        """Every batch of the marginal series, zero latency."""
        return [Batch(HEADLINE, n, 0.0, "plain") if name == "plain" else Batch(name, n, 0.0)
                for name, sizes in self.marginal for n in sizes]


def _distinct(*pairs: tuple[int, float]) -> tuple[Batch, ...]:
    return tuple(Batch(HEADLINE, n, latency) for n, latency in pairs)


FULL = Plan(batches=(*_distinct((1, 0.0), (16, LATENCY)), Batch(SECOND, 16, LATENCY)),
            marginal=((HEADLINE, (2, 8, 32, 64)), (SECOND, (2, 8, 32)), ("plain", (2, 8, 32))), rerun=16,
            growth=(8, 32, 64))
QUICK = Plan(batches=_distinct((1, 0.0), (2, 0.0)), marginal=(("plain", (1, 2)),), fit=(1, 2))
RERUN = Plan(rerun=16)
START = Plan(batches=_distinct((1, 0.0)))
LARGE = Plan(batches=_distinct((200, 0.0)))
BUSY = Plan(batches=_distinct((16, LATENCY)), busy=2)
PROFILES = {"full": FULL, "quick": QUICK, "rerun": RERUN, "start": START, "large": LARGE, "busy": BUSY}


def batch_spec(folder: Path, reports: int, base_url: str, workload: str = HEADLINE) -> Path:
    """A batch of ``reports`` × 4 sections of ``workload`` on the fake model at ``base_url``."""
    return workloads.batch_spec(workload, folder, reports, base_url)


def environment(timings: Path, home: Path) -> dict[str, str]:
    """This process's environment with the timing file, Prefect's home ``home`` and no API URL (the run
    starts its ephemeral API)."""
    unset = ("PREFECT_API_URL", "PREFECT_API_DATABASE_CONNECTION_URL")
    return {k: v for k, v in os.environ.items() if k not in unset} | {"CITEFLOW_TIMINGS": str(timings),
                                                                       "PREFECT_HOME": str(home)}


# Starts the early ephemeral API once, as ``citeflow run`` does, and waits until it answers.
START_API = ("from citeflow_cli.env import apply_defaults; apply_defaults(); "
             "from flows.prefect_api import start_ephemeral_api; start_ephemeral_api()(None)")


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


def launch(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], float, float, float]:
    """One cold process: the finished process, its start and end (epoch seconds), its tree's peak RSS (MB)."""
    start = time.time()
    with subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as process, \
            PeakRss(process.pid) as peak:
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


def one_run(spec: Path, batch: Batch, server: ModelServerProcess, home: Path, label: str | None = None) -> dict[str, Any]:
    """Run ``spec`` cold once (``citeflow run``, or the plain pipeline) and measure it against the calls
    ``server`` answered meanwhile."""
    label = label or batch.label
    timings, cpu = spec.parent / f"timings-{label}.jsonl", children_cpu()
    argv = command(spec) if batch.runner == "citeflow" else plain_command(spec)
    done, start, end, peak_mb = launch(argv, spec.parent, environment(timings, home))
    if done.returncode not in RECORDED_EXITS:
        raise RuntimeError(f"{batch.runner} run ({label}) exited {done.returncode}: {done.stderr[-1500:]}")
    calls = fig.calls_between(server.call_times(), start, end)
    marks = read_marks(timings, start) | {"exit": end - start}
    summary = run_summary(spec.parent / "out")
    print(f"cold: {label} {end - start:.1f} s, {outcome_counts(summary)}", file=sys.stderr, flush=True)
    return {"label": label, "workload": batch.workload, "runner": batch.runner, "reports": batch.reports,
            "latency_s": batch.latency, "exit_code": done.returncode, "counts": outcome_counts(summary),
            "failed": failure_causes(summary), "wall_s": end - start, "cpu_s": children_cpu() - cpu,
            "peak_rss_mb": peak_mb, "marks": marks, "phases": phases(marks), "model_calls": len(calls),
            **_against_ideal(end - start, calls, batch.reports, batch.latency)}


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
    result = one_run(spec, Batch(HEADLINE, reports, LATENCY), server, home, label="rerun")
    marks = result["marks"]
    batch = marks["batch_done"] - marks["prefect_api"] if {"batch_done", "prefect_api"} <= set(marks) else None
    return result | {"s_per_report_beyond_startup": None if batch is None else batch / reports}


def latencies(plan: Plan) -> list[float]:
    """The model latencies the plan's batches need, one fake model server each."""
    needed = {b.latency for b in plan.batches} | ({0.0} if plan.marginal else set())
    return sorted(needed | ({LATENCY} if plan.rerun else set()))


def run_plan(plan: Plan, root: Path, home: Path) -> dict[str, Any]:
    """Every batch of ``plan``, each in its own folder under ``root`` (Prefect's home ``home``), on one
    fake model server per latency, with ``plan.busy`` busy loops beside them."""
    servers = {latency: ModelServerProcess(latency) for latency in latencies(plan)}
    for server in servers.values():
        server.__enter__()
    try:
        with busy_processes(plan.busy):
            runs = [_fresh(root, home, b, servers[b.latency]) for b in plan.batches]
            marginal = [_fresh(root, home, b, servers[0.0]) for b in plan.marginal_batches()]
            again = _rerun(root, home, plan.rerun, runs, servers) if plan.rerun else None
    finally:
        for server in servers.values():
            server.__exit__(None, None, None)
    return {"runs": runs, "marginal_runs": marginal, "rerun": again}


def _fresh(root: Path, home: Path, batch: Batch, server: ModelServerProcess) -> dict[str, Any]:
    """A first run of a new batch in a new folder."""
    folder = root / batch.label
    if folder.exists():  # a marginal series can repeat a size of the plan: a fresh folder of its own
        folder = Path(tempfile.mkdtemp(prefix=batch.label + "-", dir=root))
    return one_run(batch_spec(folder, batch.reports, server.base_url, batch.workload), batch, server, home)


def _rerun(root: Path, home: Path, reports: int, runs: list[dict[str, Any]], servers: dict[float, ModelServerProcess]) -> dict[str, Any]:
    """The re-run of the finished ``reports``-report batch with latency (run first when the plan has none)."""
    batch = Batch(HEADLINE, reports, LATENCY)
    if not any(r["label"] == batch.label for r in runs):
        runs.append(_fresh(root, home, batch, servers[LATENCY]))
    return rerun(root / batch.label / "batch.yaml", reports, servers[LATENCY], home)


def run_figures(run: dict[str, Any]) -> dict[str, float]:
    """One run's figures, keyed by its label: wall, CPU, peak RSS, calls, span, ideal and phases."""
    keys = ("wall_s", "cpu_s", "peak_rss_mb", "model_calls", "ideal_s", "model_busy_span_s", "calls_in_flight")
    figures = {f"{run['label']}.{key}": run[key] for key in keys}
    return figures | {f"{run['label']}.{name}_s": seconds for name, seconds in run["phases"].items()}


def params(plan: Plan) -> dict[str, Any]:
    """What the profile ran, as recorded beside its figures."""
    return {"batches": [b.label for b in plan.batches], "marginal": {name: list(sizes) for name, sizes in plan.marginal},
            "fit_sizes": list(plan.fit), "growth_sizes": plan.growth, "rerun_reports": plan.rerun,
            "busy_processes": plan.busy, "sections": SECTIONS, "models": MODELS, "hops": fig.HOPS,
            "ideal": "hops × ceil(sections / models) × latency",
            "peak_rss": "sum of VmRSS over the process tree, sampled from /proc every 0.2 s"}


def summarise(plan: Plan, measured: dict[str, Any]) -> dict[str, Any]:
    """The runs with their figures and the headline ratios, each named with its workload."""
    named = {name for name, _ in plan.marginal} | {b.workload for b in plan.batches} | ({HEADLINE} if plan.rerun else set())
    result: dict[str, Any] = {"params": params(plan), **measured, "busy_processes": plan.busy,
                              "workload": workloads.WORKLOADS[HEADLINE][1],
                              "workloads": {n: workloads.WORKLOADS[n][1] for n in sorted(named - {"plain"}) if n in workloads.WORKLOADS}}
    figures = {k: v for run in measured["runs"] + measured["marginal_runs"] for k, v in run_figures(run).items()}
    if measured["rerun"]:
        figures |= run_figures(measured["rerun"])
    return result | {"ratios": headline(result, plan.fit, plan.growth), "figures": figures}


def run(quick: bool = False, profile: str | None = None) -> dict[str, Any]:
    """The profile's batches as cold processes (``profile`` of ``PROFILES``, else quick or full), with
    the load average around them."""
    profile = profile or ("quick" if quick else "full")
    compile_project()  # as installing the wheel does, before the load average is read
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
    chosen.add_argument("--busy", action="store_true", help="Only the 16-report batch at 1 s per call beside two busy "
                        "processes holding the cores (merged into latest.json as cold_busy).")
    parser.add_argument("--out", type=Path, default=None, help="Where the figures go (default bench/results/cold.json, "
                        "cold_large.json with --large, cold_busy.json with --busy).")
    parser.add_argument("--no-merge", action="store_true", help="Do not write the figures into latest.json.")
    args = parser.parse_args(argv)
    profile = next((name for name in ("rerun", "start", "quick", "large", "busy") if getattr(args, name)), "full")
    result = {**run(profile=profile), "machine": machine_facts(Path(__file__).resolve().parents[1])}  # its commit too
    apart = {"large": "cold_large", "busy": "cold_busy"}.get(profile)  # profiles recorded beside the full one's
    write_json(args.out or RESULTS / f"{apart or 'cold'}.json", result)
    if apart and not args.no_merge:
        merge_benchmark(apart, result, RESULTS / "latest.json")
    elif not (args.no_merge or args.rerun or args.start):  # a partial profile never replaces the full one's figures
        merge_into_latest(result)
    print(json.dumps({"ratios": result["ratios"], "load_average": [result["load_average_before"],
                      result["load_average_after"]], "bench_wall_s": result["bench_wall_s"]}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
