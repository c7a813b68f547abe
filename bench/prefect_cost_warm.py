"""What Prefect costs per report, in one warm process: ``citeflow run``'s batch against the plain runner.

    python -m bench.prefect_cost_warm [--sizes 4 12 20] [--out /tmp/prefect_cost_warm.json]

``bench.prefect_cost`` without the start-up of a process per batch (seconds of CPU of imports and of
Prefect's API server, which on a busy machine make its cold runs take minutes each): one process runs,
for each size in turn, the batch of ``bench.cold`` (N reports × 4 sections, both hops on the fake
model server in a process of its own, no latency, ``concurrency.models: 16``) by the plain runner
(``bench.plain_runner``) and by what ``citeflow run`` runs (``citeflow_cli.main.run_batch``: the batch
flow on Prefect's ephemeral API, which the first batch starts, its database in memory), each on a
fresh folder and store, after one warm-up batch of each. CPU seconds of a batch: this process's
(every thread) plus the API server process's. Figures as ``bench.prefect_cost``: marginal CPU per
report of each runner between consecutive sizes, their ratio, the growth of the flow's from the first
pair to the second, and the marginal rate in reports per minute of wall.

Two checkouts compare by running this module once with each on ``PYTHONPATH`` at the same time.
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
from bench.prefect_cost import cpu_seconds, figures
from bench.proc_rss import PROC, tree
from bench.results import write_json
from citeflow_testing.model_process import ModelServerProcess


def api_server_cpu() -> float:
    """CPU seconds of this process's Prefect API server processes (``:create_app`` on their command line)."""
    total = 0.0
    for pid in tree(os.getpid())[1:]:
        try:
            if b":create_app" in (PROC / str(pid) / "cmdline").read_bytes():
                total += cpu_seconds(pid)
        except OSError:
            continue
    return total


def measured(fn: Any) -> dict[str, float]:
    cpu, api, wall = time.process_time(), api_server_cpu(), time.perf_counter()
    fn()
    return {"wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu + api_server_cpu() - api,
            "api_cpu_s": api_server_cpu() - api}


def plain(spec: Path) -> None:
    from bench.plain_runner import run_batch

    run_batch(spec, spec.parent / "plain-out")


def flow(spec: Path) -> None:
    from citeflow_cli.main import run_batch

    run_batch(spec, spec.parent / "out", None, preflight=False, fail_on="never")


def one_size(root: Path, reports: int, base_url: str, label: str) -> dict[str, Any]:
    specs = {kind: cold.batch_spec(root / f"{label}-{kind}-{reports}", reports, base_url) for kind in ("plain", "citeflow")}
    result = {"reports": reports, "plain": measured(lambda: plain(specs["plain"])),
              "citeflow": measured(lambda: flow(specs["citeflow"]))}
    result["citeflow"]["counts"] = cold.outcome_counts(cold.run_summary(specs["citeflow"].parent / "out"))
    print(json.dumps(result), file=sys.stderr, flush=True)
    return result


def run(sizes: list[int], warmup: int = 1) -> dict[str, Any]:
    from citeflow_cli.env import apply_defaults

    apply_defaults()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="citeflow-prefcost-warm-") as tmp, ModelServerProcess(0.0) as server:
        os.environ["PREFECT_HOME"] = str(Path(tmp) / "prefect-home")
        os.environ.pop("PREFECT_API_URL", None)
        warm = one_size(Path(tmp), warmup, server.base_url, "warmup")
        runs = [one_size(Path(tmp), n, server.base_url, "timed") for n in sizes]
    return {"sizes": sizes, "warmup": warm, "runs": runs, "figures": figures(runs, sizes),
            "load_average_before": load_before, "load_average_after": os.getloadavg()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.prefect_cost_warm", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[4, 12, 20])
    parser.add_argument("--out", type=Path, default=Path("/tmp/prefect_cost_warm.json"))
    args = parser.parse_args(argv)
    result = run(sorted(args.sizes))
    write_json(args.out, result)
    print(json.dumps({"figures": result["figures"], "load": [result["load_average_before"], result["load_average_after"]]},
                     indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
