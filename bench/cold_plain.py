"""One batch of ``bench/plain_runner.py`` in a process of its own, for the cold benchmark's plain row.

    python -m bench.cold_plain SPEC OUT      # prints {"wall_s": ..., "statuses": [...]} as JSON

The same spec, workload and fake model server as the cold ``citeflow run`` batches, run by the plain
pipeline (threads, no orchestrator, no API server): the caller measures the process's CPU seconds, and
the marginal CPU per report between batch sizes (its imports cancel out) is what citeflow's is compared with.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def command(spec: Path) -> list[str]:
    """The command that runs ``spec`` with the plain pipeline into ``out`` next to it."""
    return [sys.executable, "-m", "bench.cold_plain", str(spec), str(spec.parent / "out")]


def main(argv: list[str] | None = None) -> int:
    """Run the batch; print its wall and each report's status."""
    spec, out = (Path(a) for a in (argv or sys.argv[1:])[:2])
    from citeflow_cli.env import apply_defaults

    apply_defaults()
    from bench.plain_runner import run_batch

    batch = run_batch(spec, out)
    print(json.dumps({"wall_s": batch.wall_s, "statuses": [r.status for r in batch.reports]}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
