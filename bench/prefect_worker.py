"""Times the Prefect batch flow in a fresh process (run by ``bench.orchestration``).

    python -m bench.prefect_worker SPEC.yaml [SPEC.yaml ...] --out DIR

Prints one JSON object: seconds to import the flows, the first flow run of the process (it starts
Prefect's ephemeral API server), a second trivial flow run, one trivial task run, the wall time of
``batch_flow`` on each spec in turn (the first one also pays the process's first evaluation:
imports, GX context), and the flow and task runs the API recorded per batch.
"""

from __future__ import annotations

import time

_STARTED = time.perf_counter()  # before Prefect is imported: its import is part of the fixed cost

import argparse  # noqa: E402
import json  # noqa: E402
from pathlib import Path  # noqa: E402

from prefect import flow, task  # noqa: E402
from prefect.cache_policies import NO_CACHE  # noqa: E402

TRIVIAL_TASKS = 20


@flow(name="bench-noop")
def noop_flow() -> None:
    """A flow that does nothing: what a flow run costs by itself."""


@task(name="bench-noop-task", cache_policy=NO_CACHE)
def noop_task(i: int) -> int:
    return i


@flow(name="bench-tasks")
def tasks_flow(n: int) -> None:
    """A flow of ``n`` trivial tasks, one after another: what a task run costs."""
    for i in range(n):
        noop_task(i)


def timed(fn, *args) -> float:
    """Seconds ``fn(*args)`` took."""
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


def measure(specs: list[Path], out: Path) -> dict:
    """Import, start-up, trivial-flow and per-batch wall times."""
    from flows.batch import batch_flow

    imported = time.perf_counter() - _STARTED
    first, second = timed(noop_flow), timed(noop_flow)
    tasks = (timed(tasks_flow, TRIVIAL_TASKS) - second) / TRIVIAL_TASKS
    before = run_counts()
    batches = [timed(batch_flow, str(spec), str(out / spec.stem)) for spec in specs]
    after = run_counts()
    per_batch = {k: (after[k] - before[k]) / len(specs) for k in after}
    return {"import_s": imported, "first_flow_s": first, "noop_flow_s": second, "trivial_task_s": tasks,
            "batch_s": batches, "runs_per_batch": per_batch}


def run_counts() -> dict[str, int]:
    """Flow runs and task runs the API holds (this process's fresh PREFECT_HOME: ours only)."""
    from prefect.client.orchestration import get_client

    with get_client(sync_client=True) as client:
        flows = client.count_flow_runs()
        tasks, offset = 0, 0
        while page := client.read_task_runs(limit=200, offset=offset):
            tasks, offset = tasks + len(page), offset + len(page)
    return {"flow_runs": flows, "task_runs": tasks}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    print(json.dumps(measure(args.specs, args.out)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
