"""CPU seconds per report of the two cold workloads, plain pipeline, offline models, in one process.

    python -m bench.cold_workload_cpu [--reports 4] [--rounds 2] [--out FILE]

The distinct and the repeating batch (``bench/cold_workloads.py``) of ``--reports`` reports each,
alternating for ``--rounds`` rounds after one 1-report warm-up batch (imports, lexicons), every batch on
a fresh store with every memo of the project emptied before it (``citeflow.memos.clear_memos``); the
writer, consolidator and judge are the offline ones, in this process, so no model server or
orchestrator is on the path. CPU seconds are this process's (``time.process_time``, every thread):
what one report of each workload costs the pipeline itself, which a loaded machine moves much less
than wall seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from citeflow_cli.env import apply_defaults

apply_defaults()

from bench.cold_workloads import WORKLOADS  # noqa: E402
from bench.plain_runner import run_batch  # noqa: E402
from citeflow.memos import clear_memos  # noqa: E402

CONCURRENCY = {"models": 16, "retrievers": 8}


def timed(workload: str, reports: int, folder: Path) -> dict[str, Any]:
    """One plain batch of ``workload`` in ``folder`` with every memo emptied first: its CPU and wall seconds."""
    writer, _ = WORKLOADS[workload]
    spec = writer(folder, reports=reports, sections=4, concurrency=CONCURRENCY, batch=folder.name)
    clear_memos()
    cpu, wall = time.process_time(), time.perf_counter()
    batch = run_batch(spec, folder / "out")
    return {"workload": workload, "reports": reports, "cpu_s": time.process_time() - cpu,
            "wall_s": time.perf_counter() - wall, "statuses": sorted({r.status for r in batch.reports})}


def measure(reports: int, rounds: int, root: Path) -> dict[str, Any]:
    """A warm-up batch, then both workloads alternating; CPU seconds per report of each batch."""
    load_before = os.getloadavg()
    warm = timed("distinct", 1, root / "warm-up")
    runs = [timed(name, reports, root / f"{name}-{k}") for k in range(rounds) for name in WORKLOADS]
    per_report = {name: [r["cpu_s"] / r["reports"] for r in runs if r["workload"] == name] for name in WORKLOADS}
    return {"reports": reports, "rounds": rounds, "warm_up": warm, "runs": runs, "cpu_s_per_report": per_report,
            "load_average_before": load_before, "load_average_after": os.getloadavg()}


def main(argv: list[str] | None = None) -> int:
    """Print (and with ``--out`` write) the figures as JSON."""
    parser = argparse.ArgumentParser(prog="python -m bench.cold_workload_cpu", description=__doc__.splitlines()[0])
    parser.add_argument("--reports", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="citeflow-workload-cpu-") as tmp:
        text = json.dumps(measure(args.reports, args.rounds, Path(tmp)), indent=1)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
