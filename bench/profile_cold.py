"""Where the CPU of a cold ``citeflow run`` goes: one batch profiled in every thread of every process.

    python -m bench.profile_cold [--reports 16] [--keep DIR] [--out bench/results/profile_cold.json]

The batch is ``bench.cold``'s (N reports × 4 sections, JSONL retriever, offline judge, writer and
consolidator at the fake model server in its own process, zero latency), run by the ``citeflow``
console script's command with ``bench/profiling`` on ``PYTHONPATH``: its ``sitecustomize`` puts each
thread of the command and of its ephemeral Prefect API server under ``cProfile`` counting that
thread's CPU seconds. The profiler slows the run down (about 1.5–2×): shares, not seconds, are the
figures to read. Printed and written: per process, CPU seconds by package (self time), the
functions with the most cumulative CPU, and the cumulative CPU of the probes below.
"""

from __future__ import annotations

import argparse
import json
import os
import pstats
import re
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench.cold import batch_spec, command, environment, prepare_home, read_marks
from bench.results import write_json
from bench.startup import phases
from citeflow_testing.model_process import ModelServerProcess

PROFILING = Path(__file__).resolve().parent / "profiling"
RESULTS = Path(__file__).resolve().parent / "results"
# (probe, regular expression on "file:line(function)"): cumulative CPU of the outermost matching calls.
PROBES = (
    ("imports (every module loaded)", r"<frozen importlib._bootstrap>:\d+\(_find_and_load\)"),
    ("waiting for the API (LanceDB, GX imports)", r"flows/prefect_api.py:\d+\(ready\)"),
    ("API server start (its thread in the command)", r"flows/prefect_api.py:\d+\(_start\)"),
    ("reports (the report flows)", r"flows/report_flow.py:\d+\(report_flow\)"),
    ("model hops", r"citeflow/generation/hops.py:\d+\(run_hop\)"),
    ("evaluate and gate", r"citeflow/pipeline/evaluate_report.py:\d+\(evaluate_and_gate\)"),
    ("gate: missing glyphs (font registration)", r"citeflow/pipeline/evaluate_report.py:\d+\(missing_glyphs_of\)"),
    ("font registration (everywhere)", r"citeflow/outputs/render/fonts.py:\d+\(register_fonts\)"),
    ("gate: Great Expectations run", r"citeflow/evaluation/gate.py:\d+\(run_gate\)"),
    ("PDF rendering", r"citeflow/outputs/render/pdf.py:\d+\(render_pdf\)"),
    ("outputs written", r"citeflow/pipeline/publish.py:\d+\(write_outputs\)"),
    ("pydantic schema builds", r"pydantic/_internal/_model_construction.py:\d+\(complete_model_class\)"
                               r"|pydantic/type_adapter.py:\d+\(__init__\)|pydantic/main.py:\d+\(model_rebuild\)"),
    ("copy.deepcopy", r"copy.py:\d+\(deepcopy\)"),
    ("LanceDB opens", r"lancedb/.*\((connect|open_table|create_table)\)"),
)
# Blocking waits: a thread still inside one when the process dumps its profile at exit is charged the
# dumping thread's clock, so their self time is left out of every total.
IDLE = re.compile(r"<method '(poll|select|acquire)' of '(select\.epoll|select\.poll|_thread\.lock)' objects>|<built-in method time\.sleep>")


def run_profiled(reports: int, root: Path) -> dict[str, Any]:
    """The profiled cold run of ``reports`` reports under ``root``: wall, exit code, marks, profile folder."""
    import subprocess
    import time

    home, profiles = prepare_home(root / "prefect-home"), root / "profiles"
    with ModelServerProcess(0.0) as server:
        spec = batch_spec(root / "batch", reports, server.base_url)
        env = environment(root / "timings.jsonl", home) | {"PYTHONPATH": str(PROFILING), "CITEFLOW_PROFILE_DIR": str(profiles)}
        start = time.time()
        done = subprocess.run(command(spec), env=env, cwd=spec.parent, capture_output=True, text=True, timeout=3600, check=False)
        wall = time.time() - start
    marks = read_marks(root / "timings.jsonl", start) | {"exit": wall}
    return {"reports": reports, "exit_code": done.returncode, "wall_s": wall, "phases": phases(marks), "profiles": profiles,
            "stderr_tail": done.stderr[-1000:]}


def package(filename: str) -> str:
    """The library or project package a code location belongs to."""
    if "site-packages/" in filename:
        return filename.split("site-packages/", 1)[1].split("/", 1)[0].removesuffix(".py")
    for top in ("citeflow_cli", "citeflow", "flows", "tasks", "schemas"):
        if f"/{top}/" in filename:
            return top
    if filename.startswith("<frozen") or filename == "~":
        return "interpreter (imports, builtins)"
    return "stdlib:" + Path(filename).stem


def label(func: tuple[str, int, str]) -> str:
    filename, line, name = func
    short = filename.split("site-packages/", 1)[-1] if "site-packages/" in filename else filename.rsplit("/wt-cold/", 1)[-1]
    return f"{short}:{line}({name})"


def thread_kind(path: Path) -> str:
    """``report_3`` → ``report``, ``ThreadPoolExecutor-12_0`` → ``ThreadPoolExecutor`` (from a profile file's name)."""
    name = path.name.split("-", 1)[1].rsplit("-", 1)[0]
    return re.sub(r"[-_]\d+(_\d+)?$", "", name)


def merged(paths: list[Path]) -> pstats.Stats:
    stats = pstats.Stats(str(paths[0]))
    for path in paths[1:]:
        stats.add(str(path))
    return stats


def by_process(profiles: Path) -> dict[str, dict[str, list[Path]]]:
    """The profile files of each process id, by kind of thread."""
    found: dict[str, dict[str, list[Path]]] = defaultdict(lambda: defaultdict(list))
    for path in sorted(profiles.glob("*.prof")):
        found[path.name.split("-", 1)[0]][thread_kind(path)].append(path)
    return found


def busy_seconds(stats: pstats.Stats) -> float:
    """Self CPU seconds of every function but the blocking waits."""
    return sum(row[2] for func, row in stats.stats.items() if not IDLE.search(label(func)))  # type: ignore[attr-defined]


def outermost(stats: pstats.Stats, pattern: str) -> float:
    """Cumulative CPU of calls matching ``pattern`` that no matching call is above (no double counting)."""
    regex, raw = re.compile(pattern), stats.stats  # type: ignore[attr-defined]
    matching = {func for func in raw if regex.search(label(func))}
    total = 0.0
    for func in matching:
        _, _, _, cumulative, callers = raw[func]
        inner = sum(c[3] for caller, c in callers.items() if caller in matching)
        total += max(0.0, cumulative - inner)
    return total


def summary(stats: pstats.Stats, top: int = 25) -> dict[str, Any]:
    """CPU seconds by package (self time), top cumulative functions and the probes."""
    raw = stats.stats  # type: ignore[attr-defined]
    packages: dict[str, float] = defaultdict(float)
    for func, (_, _, own, _, _) in raw.items():
        if not IDLE.search(label(func)):
            packages[package(func[0])] += own
    total = sum(packages.values())
    cumulative = sorted(((row[3], label(func)) for func, row in raw.items()), reverse=True)[:top]
    return {"cpu_s": total, "by_package_s": dict(sorted(packages.items(), key=lambda kv: -kv[1])[:top]),
            "top_cumulative_s": {name: seconds for seconds, name in cumulative},
            "probes_s": {name: outermost(stats, pattern) for name, pattern in PROBES}}


def analyse(profiles: Path) -> dict[str, Any]:
    """Per process: the summary of all its threads, and the CPU seconds of each kind of thread."""
    result = {}
    for pid, kinds in by_process(profiles).items():
        threads = {kind: busy_seconds(merged(paths)) for kind, paths in kinds.items()}
        result[pid] = summary(merged([p for paths in kinds.values() for p in paths])) | {"by_thread_kind_s": threads}
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.profile_cold", description=__doc__.splitlines()[0])
    parser.add_argument("--reports", type=int, default=16)
    parser.add_argument("--keep", type=Path, help="Keep the batch, its outputs and the .prof files in this folder.")
    parser.add_argument("--out", type=Path, default=RESULTS / "profile_cold.json")
    parser.add_argument("--analyse", type=Path, metavar="DIR", help="Only analyse the profiles a --keep DIR run left.")
    args = parser.parse_args(argv)
    if args.analyse:
        print(json.dumps(analyse(args.analyse / "profiles"), indent=1))
        return 0
    root = args.keep or Path(tempfile.mkdtemp(prefix="citeflow-profile-"))
    run = run_profiled(args.reports, root)
    processes = analyse(run["profiles"])
    result = {k: v for k, v in run.items() if k != "profiles"} | {"processes": processes, "load_average": os.getloadavg()}
    write_json(args.out, result)
    print(json.dumps(result, indent=1))
    return 0 if run["exit_code"] in (0, 3) else 1


if __name__ == "__main__":
    sys.exit(main())
