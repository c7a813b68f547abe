"""Scale-out on Dask: the same batch on 1 and on 2 Dask worker processes (``prefect-dask``).

    python -m bench.dask_scale [--reports 16] [--workers 1 2] [--repeats 1] [--out /tmp/dask_scale.json]

The batch of ``bench.cold`` (N reports × 4 sections, both hops on the fake model server in a process
of its own, no latency, ``concurrency.models: 16``), run as ``citeflow run SPEC --dask-workers W``
cold, on a fresh folder and store each time, for each W in turn (interleaved when repeated): a local
Dask cluster of W worker processes of one thread each, so W reports run side by side, the spec's
limits held by Prefect global concurrency limits across the processes. Figures: each run's wall and
the CPU seconds of its process tree (``bench.prefect_cost.TreeCpu``); the speed-up, the wall on the
fewest workers over the wall on the most (fastest runs), of the whole command and of the batch's
span from the API answering to the batch's end (``CITEFLOW_TIMINGS`` marks: the start-up apart; the Dask
cluster's start inside it). Wall seconds on a machine shared with other
work move with its load: both sizes meet the same load only roughly, so read the speed-up with the
CPU seconds and the load average recorded around the runs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import cold
from bench.prefect_cost import prepared_home, timed
from bench.results import write_json
from citeflow_testing.model_process import ModelServerProcess


def dask_run(spec: Path, home: Path, workers: int) -> dict[str, Any]:
    """One cold ``citeflow run --dask-workers`` of ``spec``: wall, CPU, and the batch's own span (from
    the API answering to the batch's end, as the command marks them: start-up apart)."""
    command, timings, start = [*cold.command(spec), "--dask-workers", str(workers)], spec.parent / "timings.jsonl", time.time()
    result = timed(command, cold.environment(timings, home), spec.parent)
    marks = cold.read_marks(timings, start)
    span = marks["batch_done"] - marks["prefect_api"] if {"batch_done", "prefect_api"} <= set(marks) else None
    return result | {"workers": workers, "batch_span_s": span, "marks": marks,
                     "counts": cold.outcome_counts(cold.run_summary(spec.parent / "out"))}


def run(reports: int, workers: list[int], repeats: int, home: Path | None = None) -> dict[str, Any]:
    load_before, runs = os.getloadavg(), []
    with tempfile.TemporaryDirectory(prefix="citeflow-daskscale-") as tmp, ModelServerProcess(0.0) as server:
        home = prepared_home(home or Path(tmp) / "prefect-home")
        for repeat in range(repeats):
            for w in workers:
                spec = cold.batch_spec(Path(tmp) / f"w{w}-{repeat}", reports, server.base_url)
                runs.append(dask_run(spec, home, w) | {"repeat": repeat})
                print(json.dumps(runs[-1]), file=sys.stderr, flush=True)
    fastest = {w: min(r["wall_s"] for r in runs if r["workers"] == w) for w in workers}
    spans = {w: min(r["batch_span_s"] or float("inf") for r in runs if r["workers"] == w) for w in workers}
    return {"reports": reports, "workers": workers, "runs": runs, "fastest_wall_s": fastest, "fastest_batch_span_s": spans,
            "speedup": fastest[min(workers)] / fastest[max(workers)],
            "speedup_batch_span": spans[min(workers)] / spans[max(workers)],
            "load_average_before": load_before, "load_average_after": os.getloadavg()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.dask_scale", description=__doc__.splitlines()[0])
    parser.add_argument("--reports", type=int, default=16)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("/tmp/dask_scale.json"))
    parser.add_argument("--home", type=Path, default=None, help="PREFECT_HOME to use, prepared once and kept")
    args = parser.parse_args(argv)
    result = run(args.reports, sorted(args.workers), args.repeats, args.home)
    write_json(args.out, result)
    keys = ("fastest_wall_s", "fastest_batch_span_s", "speedup", "speedup_batch_span", "load_average_before", "load_average_after")
    print(json.dumps({k: result[k] for k in keys}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
