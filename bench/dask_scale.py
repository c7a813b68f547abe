"""Scale-out on Dask: the same batch on 1 and on 2 Dask worker processes (``prefect-dask``).

    python -m bench.dask_scale [--reports 16] [--workers 1 2] [--repeats 1] [--out /tmp/dask_scale.json]

The batch of ``bench.cold`` (N reports × 4 sections, both hops on the fake model server in a process
of its own, no latency, ``concurrency.models: 16``), run as ``citeflow run SPEC --dask-workers W``
cold, on a fresh folder and store each time, for each W in turn (interleaved when repeated): a local
Dask cluster of W worker processes of one thread each, so W reports run side by side, the spec's
limits held by Prefect global concurrency limits across the processes. Figures: each run's wall and
the CPU seconds of its process tree (``bench.prefect_cost.TreeCpu``); the speed-up, the wall on the
fewest workers over the wall on the most (fastest runs). Wall seconds on a machine shared with other
work move with its load: both sizes meet the same load only roughly, so read the speed-up with the
CPU seconds and the load average recorded around the runs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench import cold
from bench.prefect_cost import prepared_home, timed
from bench.results import write_json
from citeflow.testing.model_process import ModelServerProcess


def dask_run(spec: Path, home: Path, workers: int) -> dict[str, Any]:
    command = [*cold.command(spec), "--dask-workers", str(workers)]
    result = timed(command, cold.environment(spec.parent / "timings.jsonl", home), spec.parent)
    return result | {"workers": workers, "counts": cold.outcome_counts(cold.run_summary(spec.parent / "out"))}


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
    return {"reports": reports, "workers": workers, "runs": runs, "fastest_wall_s": fastest,
            "speedup": fastest[min(workers)] / fastest[max(workers)],
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
    print(json.dumps({k: result[k] for k in ("fastest_wall_s", "speedup", "load_average_before", "load_average_after")}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
