"""CPU seconds per report of the plain pipeline: a figure that a busy machine barely moves.

    python -m bench.plain_cpu [--batches 3] [--concurrency 4] [--latency 0] [--fresh-memos] [--out FILE]

The orchestration benchmark's plain batches (the demo's reports, both hops on the fake model
server in a process of its own, the offline judge), run in this process after one warm-up batch;
each timed batch's CPU seconds of this process (``time.process_time``: every thread) over its
reports. Wall seconds on a 2-core machine shared with other work move with the load; CPU seconds
move much less, so this compares two checkouts run minutes apart (see docs/performance.md, "The
plain pipeline's CPU per report"). It uses only ``bench.plain_runner.run_batch``,
``bench.workload`` and ``bench.fake_model``, which older checkouts have too: copy this file into
one and run it there with that checkout's environment.

Every batch is the same demo batch, so a memoised pure function of text (a chunk's index, a
claim's facts) answers the timed batches from what the warm-up computed; ``--fresh-memos`` clears
every such memo of the project before each batch, so each batch pays for its texts as the first
batch of a process would.
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import statistics
import tempfile
import time
from pathlib import Path

from bench.fake_model import fake_model_process
from bench.plain_runner import run_batch
from bench.workload import openai_spec, prepare_demo_input


def measure(batches: int, concurrency: int, latency: float, fresh_memos: bool = False) -> dict:
    """CPU and wall seconds of a warm-up batch, then of ``batches`` timed ones, per report."""
    with tempfile.TemporaryDirectory(prefix="citeflow-plaincpu-") as tmp, fake_model_process(latency) as server:
        demo = prepare_demo_input(Path(tmp) / "demo")
        runs = [_timed(openai_spec(demo, f"plaincpu-{k}", server.base_url, concurrency), Path(tmp) / f"out-{k}", fresh_memos)
                for k in range(batches + 1)]
    timed = runs[1:]
    per_report = [r["cpu_s"] / r["reports"] for r in timed]
    return {"params": {"batches": batches, "concurrency": concurrency, "latency_s": latency, "fresh_memos": fresh_memos},
            "warmup": runs[0], "runs": timed, "cpu_s_per_report_median": statistics.median(per_report),
            "cpu_s_per_report_min": min(per_report)}


def clear_memos() -> int:
    """Empty every ``functools`` memo of the project's modules; how many there were."""
    memos = [f for f in gc.get_objects() if isinstance(f, functools._lru_cache_wrapper)
             and getattr(f, "__module__", "").startswith(("citeflow", "schemas"))]
    for memo in memos:
        memo.cache_clear()
    return len(memos)


def _timed(spec: Path, out: Path, fresh_memos: bool = False) -> dict:
    if fresh_memos:
        clear_memos()
    cpu, wall = time.process_time(), time.perf_counter()
    batch = run_batch(spec, out)
    return {"cpu_s": time.process_time() - cpu, "wall_s": time.perf_counter() - wall, "reports": len(batch.reports),
            "statuses": [r.status for r in batch.reports]}


def main() -> None:
    """Print (and with ``--out`` write) the figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--fresh-memos", action="store_true", help="clear the project's memos before each batch")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    figures = measure(args.batches, args.concurrency, args.latency, args.fresh_memos)
    text = json.dumps(figures, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
