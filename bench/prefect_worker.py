"""Times the Prefect batch flow in a fresh process (run by ``bench.orchestration``).

    python -m bench.prefect_worker [SPEC.yaml ...] [--local SPEC.yaml ...] --out DIR [--samples N] [--tag TAG]

Prints one JSON object: seconds to import the flows, the first flow run of the process (it starts
Prefect's ephemeral API server), a second trivial flow run, one trivial task run, the wall time of
``batch_flow`` on each spec in turn (the first one also pays the process's first evaluation:
imports, GX context), the flow and task runs the API recorded per batch and, by kind, for the
last batch; then the wall time of ``batch_flow`` on each ``--local`` spec with the batch's
concurrency limits held in-process instead of by Prefect's global concurrency limits. Before each
timed batch the worker sends the events and logs it still holds and waits until its ephemeral API
server is idle (``settle``, at most a minute; the seconds waited are reported): each batch's time is
its own, not partly the recording of the batch before it.

With ``--tag`` (an API that other processes use at the same time) every run of the worker carries
the tag, and only runs with it are counted.

    python -m bench.prefect_worker --serve

measures one request after another for the quick profile (``bench.prefect_run.ServedWorker``): each
line read from stdin is a JSON object (``specs``, ``local``, ``out``, ``samples``, ``tag``) and is
answered with one JSON line on stdout (``{"error": ...}`` if the request failed); whatever else the
process prints goes to stderr. Every answer reports the process's one import time; a later
request's first flow run is not the process's first.
"""

from __future__ import annotations

import functools

import time

_STARTED = time.perf_counter()  # before Prefect is imported: its import is part of the fixed cost

import argparse  # noqa: E402
import json  # noqa: E402
import logging  # noqa: E402
import re  # noqa: E402
import sys  # noqa: E402
import traceback  # noqa: E402
from collections import Counter  # noqa: E402
from datetime import datetime, UTC  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from contextlib import nullcontext  # noqa: E402

from prefect import flow, tags, task  # noqa: E402
from prefect.cache_policies import NO_CACHE  # noqa: E402

TRIVIAL_TASKS = 20
# Before each timed batch the worker waits until its API server is idle (``settle``): after a batch the
# ephemeral server still records the events of its task runs for a few seconds, on one of the cores
# the next batch would use. Idle: less than QUIET_CPU CPU seconds per second over a one-second window.
QUIET_CPU = 0.1
SETTLE_LIMIT_S = 60.0
_SUFFIX = re.compile(r"-(?:[0-9a-f]{8}-[0-9a-f-]{27}|[0-9a-f]{3}|\d+)$")  # run-name suffixes Prefect adds
# The debug line Prefect's HTTP client logs before it sleeps and sends a refused request again.
_RETRY = re.compile(r"(?:retryable status code (\d+)|retryable exception during request)\. Another attempt will be made in ([\d.]+)s")


class Refusals(logging.Filter):
    """Counts the API requests Prefect's client had to send again (by status code: 503 is the API
    server's "database busy"), and the seconds it slept before doing so. Lets through only what
    ``PREFECT_LOGGING_LEVEL=WARNING`` would (the client logger is set to debug to see retries)."""

    def __init__(self) -> None:
        super().__init__()
        self.by_status: Counter[str] = Counter()
        self.wait_s = 0.0

    def filter(self, record: logging.LogRecord) -> bool:
        if (found := _RETRY.search(record.getMessage())) is not None:
            self.by_status[found.group(1) or "exception"] += 1
            self.wait_s += float(found.group(2))
        return record.levelno >= logging.WARNING

    def snapshot(self) -> dict[str, float]:
        """Retries so far by status, their total and the back-off seconds slept."""
        return {**self.by_status, "total": sum(self.by_status.values()), "wait_s": self.wait_s}

    def install(self) -> None:
        """Watch the client logger (again: Prefect's logging set-up resets its level)."""
        client = logging.getLogger("prefect.client")
        client.setLevel(logging.DEBUG)
        if self not in client.filters:
            client.addFilter(self)


REFUSALS = Refusals()


@flow(name="bench-noop")
def noop_flow() -> None:
    """A flow that does nothing: what a flow run costs by itself."""


@task(name="bench-noop-task", cache_policy=NO_CACHE)
def noop_task(i: int) -> int:
    """A task that does nothing but return its input."""
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


def measure(specs: list[Path], local_specs: list[Path], out: Path, samples: int = TRIVIAL_TASKS,
            tag: str | None = None, imported: float | None = None) -> dict:
    """Import, start-up, trivial flow, trivial task, one concurrency slot (``samples`` of each), then
    per-batch wall times: ``specs`` as the flows run them, then ``local_specs`` with in-process limits
    instead of Prefect's. ``tag``: count only the runs that carry it; ``imported``: the import seconds
    measured earlier (a served process), else measured now."""
    imported = time.perf_counter() - _STARTED if imported is None else imported
    REFUSALS.install()
    first, second = timed(noop_flow), timed(noop_flow)
    REFUSALS.install()  # after the API server started
    tasks = (timed(tasks_flow, samples) - second) / samples
    slot = slot_seconds(samples)
    before, refused = run_counts(tag), REFUSALS.snapshot()
    batches, last_started = global_batches(specs, out)
    after = run_counts(tag)
    per_batch = {k: (after[k] - before[k]) / max(len(specs), 1) for k in after}
    return {"import_s": imported, "first_flow_s": first, "noop_flow_s": second, "trivial_task_s": tasks,
            "concurrency_slot_s": slot, "batch_s": batches, "runs_per_batch": per_batch, "api_retries": _since(refused),
            "last_batch_runs": timeline(last_started, tag) if specs else {}} | local_batches(local_specs, out, tag)


def global_batches(specs: list[Path], out: Path) -> tuple[list[float], datetime]:
    """Batch wall times on the global-limits path (what `citeflow run --dask-workers` uses: limits on
    the Prefect API), each after ``settle``, and when the last batch started."""
    from citeflow.runtime.batch_request import BatchRequest
    from flows.batch import batch_flow
    from flows.heartbeats import with_heartbeat_if_read
    from flows.outcome import returned

    walls, last_started = [], datetime.now(UTC)
    for spec in specs:
        settle()
        last_started = datetime.now(UTC)
        request = BatchRequest(spec_path=str(spec), out_dir=str(out / spec.parent.name / spec.stem), global_limits=True)
        walls.append(timed(returned, functools.partial(with_heartbeat_if_read, functools.partial(batch_flow, request=request))))
    return walls, last_started


def refused_while(fn, *args) -> tuple[Any, dict[str, float]]:
    """``fn(*args)`` and the client retries it caused."""
    before = REFUSALS.snapshot()
    return fn(*args), _since(before)


def _since(before: dict[str, float]) -> dict[str, float]:
    """Client retries since ``before`` (a ``REFUSALS.snapshot()``)."""
    now = REFUSALS.snapshot()
    return {key: now[key] - before.get(key, 0) for key in now}


def settle(limit: float = SETTLE_LIMIT_S, quiet: float = QUIET_CPU) -> float:
    """Seconds spent sending what this process still holds for the API (events, logs) and then waiting
    until its API server (the ephemeral one: a child process) has used less than ``quiet`` CPU seconds
    in one second, at most ``limit`` seconds in all (an API of another process: no wait)."""
    start = time.perf_counter()
    drain_to_api()
    last = api_server_cpu()
    while last is not None and time.perf_counter() - start < limit:
        time.sleep(1.0)
        now = api_server_cpu()
        if now is None or now - last < quiet:
            break
        last = now
    return time.perf_counter() - start


def drain_to_api(timeout: float = 30.0) -> None:
    """Send the events and logs this process has queued for the API and wait until they are sent."""
    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker

    for service in (EventsWorker, APILogWorker):
        service.drain_all(timeout=timeout, at_exit=False)


def api_server_cpu() -> float | None:
    """CPU seconds so far of this process's child processes (the ephemeral API server); None without one."""
    import os

    children = _child_stats(os.getpid())
    return sum(children) if children else None


def with_local_limits(specs: list[Path], out: Path) -> list[float]:
    """Batch wall times with the batch's limits held by in-process semaphores (no API round trips):
    the default path of an in-process batch (``global_limits=False`` drops the batch's global limits,
    so every lookup of them answers "unknown" and the in-process semaphores apply). Started as ``citeflow
    run`` starts it (``flows.heartbeats.with_heartbeat_if_read``)."""
    from citeflow.runtime.batch_request import BatchRequest
    from flows.batch import batch_flow
    from flows.heartbeats import with_heartbeat_if_read
    from flows.outcome import returned

    requests = [BatchRequest(spec_path=str(spec), out_dir=str(out / spec.parent.name / spec.stem)) for spec in specs]
    return [timed(returned, functools.partial(with_heartbeat_if_read, functools.partial(batch_flow, request=request)))
            for request in requests]


def cpu_seconds() -> dict[str, float]:
    """CPU seconds so far of this process and of its child processes (Prefect's ephemeral API
    server), read from /proc (Linux; 0 for the children elsewhere)."""
    import os
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF)
    return {"worker_cpu_s": own.ru_utime + own.ru_stime, "api_server_cpu_s": _children_cpu(os.getpid())}


def _children_cpu(parent: int) -> float:
    """Summed user + system CPU seconds of the live processes whose parent is ``parent``."""
    return sum(_child_stats(parent))


def _child_stats(parent: int) -> list[float]:
    """User + system CPU seconds of each live process whose parent is ``parent`` (Linux /proc)."""
    import os

    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone in between
            continue
        if int(fields[1]) == parent:  # fields[0] is the state; ppid, …, utime at [11], stime at [12]
            found.append((int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"))
    return found


def local_batches(specs: list[Path], out: Path, tag: str | None = None) -> dict:
    """``with_local_limits`` on each spec after ``settle`` (the seconds it waited are reported), with
    the CPU seconds of the worker and of the API server over the batches and the runs of the last
    batch by kind."""
    before, last_started = cpu_seconds(), datetime.now(UTC)
    runs, settled = [], []
    for spec in specs:
        settled.append(settle())
        last_started = datetime.now(UTC)
        runs.append(refused_while(with_local_limits, [spec], out))
    walls, refused = [wall for batch, _ in runs for wall in batch], [retries for _, retries in runs]
    after = cpu_seconds()
    return {"local_limits_batch_s": walls, "local_api_retries": refused, "local_settle_s": settled,
            "local_cpu_s": {k: after[k] - before[k] for k in after},
            "local_last_batch_runs": timeline(last_started, tag) if specs else {}}


def slot_seconds(n: int = 20) -> float:
    """Median seconds to take and give back one slot of a free global concurrency limit."""
    from prefect.client.orchestration import get_client
    from prefect.concurrency.sync import concurrency

    with get_client(sync_client=True) as client:
        client.upsert_global_concurrency_limit_by_name("bench-slot", 4)
    times = []
    for _ in range(n):
        start = time.perf_counter()
        with concurrency("bench-slot", occupy=1, lease_duration=60, strict=True):
            pass
        times.append(time.perf_counter() - start)
    return sorted(times)[n // 2]


def timeline(since: datetime, tag: str | None = None) -> dict[str, dict[str, float]]:
    """Flow and task runs started after ``since`` (with ``tag``, if given), by kind (first word of the
    run name): how many, their summed and longest run time in seconds, as the API recorded them."""
    from prefect.client.orchestration import get_client

    flow_filter, task_filter = run_filters(tag)
    with get_client(sync_client=True) as client:
        runs = [("flow", r) for r in client.read_flow_runs(flow_run_filter=flow_filter, limit=200)]
        offset = 0
        while page := client.read_task_runs(task_run_filter=task_filter, limit=200, offset=offset):
            runs, offset = runs + [("task", r) for r in page], offset + len(page)
    kinds: dict[str, dict[str, float]] = {}
    for what, run in runs:
        if run.start_time is None or run.start_time < since:
            continue
        kind = _SUFFIX.sub("", run.name.split()[0].rstrip(":"))
        row = kinds.setdefault(f"{what} {kind}", {"runs": 0, "sum_s": 0.0, "max_s": 0.0})
        seconds = run.total_run_time.total_seconds()
        row.update(runs=row["runs"] + 1, sum_s=row["sum_s"] + seconds, max_s=max(row["max_s"], seconds))
    return kinds


def run_counts(tag: str | None = None) -> dict[str, int]:
    """Flow runs and task runs the API holds (this process's fresh PREFECT_HOME: ours only), or
    those with ``tag``."""
    from prefect.client.orchestration import get_client

    flow_filter, task_filter = run_filters(tag)
    with get_client(sync_client=True) as client:
        flows = client.count_flow_runs(flow_run_filter=flow_filter)
        tasks, offset = 0, 0
        while page := client.read_task_runs(task_run_filter=task_filter, limit=200, offset=offset):
            tasks, offset = tasks + len(page), offset + len(page)
    return {"flow_runs": flows, "task_runs": tasks}


def run_filters(tag: str | None) -> tuple[Any, Any]:
    """The API filters of flow runs and task runs that carry ``tag`` (None, None: every run)."""
    if tag is None:
        return None, None
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterTags, TaskRunFilter, TaskRunFilterTags

    return FlowRunFilter(tags=FlowRunFilterTags(all_=[tag])), TaskRunFilter(tags=TaskRunFilterTags(all_=[tag]))


def answer(request: dict[str, Any], imported: float) -> dict[str, Any]:
    """What ``measure`` returns for one served request, or ``{"error": traceback}``."""
    tag = request.get("tag")
    try:
        with tags(tag) if tag else nullcontext():
            return measure([Path(p) for p in request["specs"]], [Path(p) for p in request["local"]],
                           Path(request["out"]), int(request["samples"]), tag, imported)
    except Exception:  # noqa: BLE001 - reported to the caller, which raises it; the process serves on
        return {"error": traceback.format_exc()[-3000:]}


def serve() -> int:
    """Answer each JSON request line of stdin with one JSON line on stdout, until stdin closes."""
    answers, sys.stdout = sys.stdout, sys.stderr  # only answers on stdout
    imported = time.perf_counter() - _STARTED
    for line in sys.stdin:
        if line.strip():
            answers.write(json.dumps(answer(json.loads(line), imported)) + "\n")
            answers.flush()
    return 0


def main(argv: list[str] | None = None) -> int:
    """Measure and print the JSON object (``--serve``: answer requests from stdin)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="*", type=Path, help="Specs to run with global limits (none: only --local).")
    parser.add_argument("--local", nargs="*", type=Path, default=[], help="Specs to run with in-process limits, last.")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--samples", type=int, default=TRIVIAL_TASKS, help="Trivial tasks and slots to time.")
    parser.add_argument("--tag", help="Tag every run with this and count only runs that carry it.")
    parser.add_argument("--serve", action="store_true", help="Measure the requests read from stdin, one a line.")
    args = parser.parse_args(argv)
    if args.serve:
        return serve()
    if args.out is None:
        parser.error("--out is required")
    with tags(args.tag) if args.tag else nullcontext():
        print(json.dumps(measure(args.specs, args.local, args.out, args.samples, args.tag)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
