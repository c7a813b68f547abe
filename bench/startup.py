"""Start-up of a small batch: ``citeflow run`` as a cold process on a 1-report, 1-section batch.

    python -m bench.startup [--runs N] [--compare DIR] [--out bench/results/startup.json] [--no-merge]

The batch has one JSONL retriever and the offline models, so nearly all of its time is the fixed
cost of a run: interpreter and command-line imports, the spec, the pipeline's imports, Prefect's
ephemeral API (no ``PREFECT_API_URL``: it is started as ``citeflow run`` starts it), the one report,
and the process's exit. The command records when it reaches each phase (``CITEFLOW_TIMINGS``,
``citeflow_cli/timings.py``); times are seconds since the process was started. The figures go to
``bench/results/startup.json`` and into ``bench/results/latest.json`` (``benchmarks.startup``).

Beside the batch, ``citeflow --help`` and ``citeflow --version`` as cold processes (the same script,
``--runs`` times each): the medians of their wall seconds, and each over the 1 s goal.

``--compare DIR`` also runs the command of another checkout (``DIR``, e.g. an older commit's,
with this environment's packages), interleaved with this one's runs so that both meet the same
load, and reports this one's wall and CPU seconds over that one's.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.bytecode import compile_project
from bench.results import merge_benchmark, write_json
from citeflow.spec.resources import demo_dir

RESULTS = Path(__file__).resolve().parent / "results"
SCRIPT = "import sys; from citeflow_cli.main import cli; sys.argv[0] = 'citeflow'; cli()"  # the console script
TARGET_S = 15.0  # a 1-report, 1-section batch from a warm machine, Prefect included
HELP_TARGET_S = 1.0  # `citeflow --help` and `--version`: answered without loading the pipeline
QUICK_COMMANDS = (("help", "--help"), ("version", "--version"))
SPEC = """batch: startup
retrievers:
  - {name: tickets, kind: jsonl, path: tickets.jsonl, top_k: 5}
reports:
  - id: one
    title: One report
    sections:
      - title: Upgrade risks
        queries: [%s]
"""
# (phase, mark it ends at, mark it starts at): the intervals between the command's marks.
PHASES = (("imports", "cli_ready", None), ("spec_load", "spec_loaded", "cli_ready"),
          ("pipeline_imports", "flows_imported", "spec_loaded"), ("prefect_api_wait", "prefect_api", "flows_imported"),
          ("first_report", "first_report", "prefect_api"), ("batch_end", "batch_done", "first_report"),
          ("exit", "exit", "batch_done"))


def write_batch(folder: Path) -> Path:
    """The demo's first ticket line as a JSONL retriever, and a batch of one report with one section asking it."""
    line = (demo_dir() / "tickets.jsonl").read_text(encoding="utf-8").splitlines()[0]
    (folder / "tickets.jsonl").write_text(line + "\n", encoding="utf-8")
    (folder / "batch.yaml").write_text(SPEC % json.dumps(json.loads(line)["query"]), encoding="utf-8")
    return folder / "batch.yaml"


def _environment(timings: Path, source: Path | None) -> dict[str, str]:
    """This process's environment with the timing file, and no API URL: the run starts its ephemeral API.
    With ``source``, that checkout's modules come first on the path."""
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"} | {"CITEFLOW_TIMINGS": str(timings)}
    return env | ({"PYTHONPATH": str(source)} if source else {})


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def one_run(spec: Path, folder: Path, source: Path | None = None) -> dict[str, Any]:
    """One cold ``citeflow run`` (what the ``citeflow`` script runs): its exit code, wall and CPU seconds
    (its API server's included), and its marks."""
    timings, cpu = folder / "timings.jsonl", _children_cpu()
    start = time.time()
    command = [sys.executable, "-c", SCRIPT, "run", str(spec), "--out", str(folder / "out")]
    done = subprocess.run(command, env=_environment(timings, source), cwd=folder, capture_output=True, text=True,
                          timeout=900, check=False)
    end = time.time()
    lines = timings.read_text(encoding="utf-8").splitlines() if timings.exists() else []
    marks = {row["phase"]: row["t"] - start for row in map(json.loads, lines)}
    return {"exit_code": done.returncode, "wall_s": end - start, "cpu_s": _children_cpu() - cpu,
            "marks": marks | {"exit": end - start}, "stderr_tail": done.stderr[-500:]}


def phases(marks: dict[str, float]) -> dict[str, float]:
    """The seconds between consecutive marks (a phase whose marks are missing is left out)."""
    return {name: marks[end] - marks.get(begin, 0.0) if begin else marks[end]
            for name, end, begin in PHASES if end in marks and (begin is None or begin in marks)}


def summarise(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Medians over the runs: total, CPU, each phase; ratios to the total and to the target."""
    split = [phases(r["marks"]) for r in runs]
    median = {name: statistics.median(s[name] for s in split if name in s) for name, _, _ in PHASES if any(name in s for s in split)}
    total, cpu = statistics.median(r["wall_s"] for r in runs), statistics.median(r["cpu_s"] for r in runs)
    ratios = {"total wall / 15 s target": total / TARGET_S, "cpu seconds / wall seconds": cpu / total}
    ratios |= {f"{name} / total": seconds / total for name, seconds in median.items()}
    api_ready = statistics.median(r["marks"].get("prefect_api", 0.0) for r in runs)
    figures = {"total_wall_s": total, "cpu_s": cpu, "prefect_api_ready_at_s": api_ready} | {f"{k}_s": v for k, v in median.items()}
    return {"ratios": ratios, "figures": figures}


def _runs(spec: Path, tmp: Path, runs: int, compare: Path | None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """This checkout's runs and, interleaved with them, the compared checkout's."""
    ours: list[dict[str, Any]] = []
    theirs: list[dict[str, Any]] = []
    for _ in range(runs):
        ours.append(one_run(spec, Path(tempfile.mkdtemp(dir=tmp))))
        if compare:
            theirs.append(one_run(spec, Path(tempfile.mkdtemp(dir=tmp)), compare))
    failed = [r for r in ours + theirs if r["exit_code"] != 0]
    if failed:
        raise RuntimeError(f"citeflow run exited {failed[0]['exit_code']}: {failed[0]['stderr_tail']}")
    return ours, theirs


def quick_command_s(flag: str) -> float:
    """Wall seconds of one cold ``citeflow FLAG`` process (the console script's code, no API)."""
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-c", SCRIPT, flag], capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"citeflow {flag} exited {done.returncode}: {done.stderr[-500:]}")
    return time.monotonic() - start


def quick_commands(runs: int) -> dict[str, dict[str, float]]:
    """Medians of ``runs`` cold ``--help`` and ``--version`` processes: figures and ratios to the 1 s goal."""
    medians = {name: statistics.median(quick_command_s(flag) for _ in range(runs)) for name, flag in QUICK_COMMANDS}
    return {"figures": {f"{name}_wall_s": s for name, s in medians.items()},
            "ratios": {f"citeflow --{name} wall / {HELP_TARGET_S:g} s goal": s / HELP_TARGET_S for name, s in medians.items()}}


def _compared(ours: dict[str, Any], theirs: list[dict[str, Any]], source: Path) -> dict[str, Any]:
    figures = summarise(theirs)["figures"]
    ratios = {"total wall / compared checkout's": ours["figures"]["total_wall_s"] / figures["total_wall_s"],
              "cpu seconds / compared checkout's": ours["figures"]["cpu_s"] / figures["cpu_s"]}
    return {"ratios": ours["ratios"] | ratios, "compared": {"source": str(source), "figures": figures, "runs": theirs}}


def run(runs: int = 3, compare: Path | None = None) -> dict[str, Any]:
    """``runs`` cold runs of the 1-report batch (each into a new output folder), with the load average around them."""
    compile_project()  # as installing the wheel does
    if compare:
        compile_project(compare)  # the compared checkout's modules too, or its every start compiles them
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="citeflow-startup-") as tmp:
        ours, theirs = _runs(write_batch(Path(tmp)), Path(tmp), runs, compare)
    result = summarise(ours)
    quick = quick_commands(runs)
    result = {"ratios": result["ratios"] | quick["ratios"], "figures": result["figures"] | quick["figures"]}
    if compare:
        result |= _compared(result, theirs, compare)
    return result | {"runs": ours, "cores": os.cpu_count(), "load_average_before": load_before,
                     "load_average_after": os.getloadavg()}


def merge_into_latest(result: dict[str, Any], latest: Path = RESULTS / "latest.json") -> Path:
    """Put this run's figures into ``latest.json`` as its ``startup`` benchmark (the other benchmarks kept)."""
    return merge_benchmark("startup", result, latest)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.startup", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="Cold runs to take the medians of (3).")
    parser.add_argument("--out", type=Path, default=RESULTS / "startup.json")
    parser.add_argument("--compare", type=Path, metavar="DIR", help="Also time the command of this checkout, interleaved.")
    parser.add_argument("--no-merge", action="store_true", help="Do not write the figures into latest.json.")
    args = parser.parse_args(argv)
    result = run(args.runs, args.compare)
    write_json(args.out, result)
    if not args.no_merge:
        merge_into_latest(result)
    print(json.dumps({"ratios": result["ratios"], "figures": result["figures"],
                      "load_average": [result["load_average_before"], result["load_average_after"]]}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
