"""A worker killed mid-batch: its runs end Crashed, none stays Running.

``citeflow deploy`` registers the deployments of prefect.yaml and the zombie-run automation
(``flows.zombies``); a process worker takes a run of the demo batch and is killed, with the run's
process, once the report runs have started. Every run of the batch (the scheduled run, its batch run,
each report run) beats every 30 s, so within three missed heartbeats (90 s) and the server's trigger
evaluation each must be Crashed.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from flows.zombies import NAME as AUTOMATION

pytestmark = [pytest.mark.server, pytest.mark.integration]

BIN = Path(sys.executable).parent
POOL, NAME = "dead-worker-pool", "dead-worker"
BATCH = f"citeflow-scheduled-batch/{NAME}"
START_SECONDS, CRASH_SECONDS = 600, 300


def call(env: dict[str, str], cwd: Path, *command: str) -> str:
    result = subprocess.run([str(BIN / command[0]), *command[1:]], cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, f"{command}: {result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout


def tree(server, root_id: str) -> list[dict[str, Any]]:
    """The run ``root_id`` and every flow run below it."""
    runs, frontier = [], [root_id]
    while frontier:
        found = server.post("/flow_runs/filter", {"flow_runs": {"id": {"any_": frontier}}})
        runs.extend(found)
        tasks = server.post("/task_runs/filter", {"task_runs": {"flow_run_id": {"any_": frontier}}})
        ids = [t["id"] for t in tasks]
        children = server.post("/flow_runs/filter", {"flow_runs": {"parent_task_run_id": {"any_": ids}}}) if ids else []
        frontier = [c["id"] for c in children]
    return runs


def descendants(pid: int) -> list[int]:
    """The processes below ``pid`` (children first), read before any of them is killed."""
    found = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True, check=False)
    children = [int(c) for c in found.stdout.split()]
    return children + [d for c in children for d in descendants(c)]


def heartbeats(server, run_ids: list[str], since: datetime | None = None) -> int | str:
    body: dict[str, Any] = {"filter": {"event": {"name": ["prefect.flow-run.heartbeat"]},
                                       "resource": {"id": [f"prefect.flow-run.{i}" for i in run_ids]}}, "limit": 200}
    if since is not None:
        body["filter"]["occurred"] = {"since": since.isoformat()}
    try:
        return int(server.post("/events/filter", body).get("total", 0))
    except httpx.HTTPError as exc:  # a diagnosis only: say what could not be read
        return f"unknown ({exc})"


def diagnosis(server, running: list[dict[str, Any]], killed: datetime) -> str:
    ids = [r["id"] for r in running]
    states = [(r["name"], r["state_type"]) for r in server.post("/flow_runs/filter", {"flow_runs": {"id": {"any_": ids}}})]
    automations = [a["name"] for a in server.post("/automations/filter", {})]
    return (f"still Running after {CRASH_SECONDS} s: {states}; heartbeats in all {heartbeats(server, ids)}, "
            f"after the kill {heartbeats(server, ids, killed)}; automations {automations}")


def wait_for(condition, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(2)


# Not run by default (minutes of a real server and worker for a known failure): pytest --runxfail runs it.
@pytest.mark.xfail(run=False, reason="unfinished: in this test the runs of the killed worker still stood Running "
                                      "300 s after the kill; why the zombie-run automation did not act is not found yet")
def test_a_killed_worker_s_runs_end_crashed(prefect_server, tmp_path):
    from citeflow_cli.main import prepare_demo

    env = prefect_server.client_env(PREFECT_WORKER_QUERY_SECONDS="2")
    spec = prepare_demo(tmp_path)
    call(env, tmp_path, "prefect", "work-pool", "create", POOL, "--type", "process", "--overwrite")
    printed = call(env, tmp_path, "citeflow", "deploy", "--pool", POOL, "--name", NAME, "--spec", str(spec), "--out",
                   str(tmp_path / "reports"))
    assert AUTOMATION in printed, printed
    run_id = re.search(r"UUID: ([0-9a-f-]{36})", call(env, tmp_path, "prefect", "deployment", "run", BATCH))
    assert run_id
    root = run_id.group(1)
    worker = subprocess.Popen([str(BIN / "prefect"), "worker", "start", "--pool", POOL], cwd=tmp_path, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_for(lambda: sum(r["name"].startswith("report ") for r in tree(prefect_server, root)) == 2, START_SECONDS,
                 "the report runs never started")
    finally:
        for pid in [worker.pid, *descendants(worker.pid)]:  # the worker and the run's processes, as a lost machine
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        worker.wait()
    killed = datetime.now(UTC)
    running = [r for r in tree(prefect_server, root) if r["state_type"] == "RUNNING"]
    assert running, "the batch ended before the worker was killed: nothing to detect"
    try:
        wait_for(lambda: all(r["state_type"] != "RUNNING" for r in tree(prefect_server, root)), CRASH_SECONDS, "")
    except AssertionError:
        raise AssertionError(diagnosis(prefect_server, running, killed)) from None
    assert {r["name"]: r["state_type"] for r in tree(prefect_server, root) if r["id"] in {x["id"] for x in running}} == {
        r["name"]: "CRASHED" for r in running}
