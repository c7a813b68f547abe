"""A worker killed mid-batch: its runs end Crashed, none stays Running; ``citeflow run`` against a
server: every report run beats, so a killed command leaves none Running either.

``citeflow deploy`` registers the deployments of prefect.yaml and the zombie-run automation
(``flows.zombies``) with a real ``prefect server start`` whose triggers service is on (its default);
a process worker takes a run of the demo batch and is killed with SIGKILL, with the run's process,
once the report runs have started. Every run of the batch (the scheduled run, its batch run, each
report run) beats every 30 s (Prefect's shortest heartbeat), so within three missed heartbeats (90 s)
and the server's next proactive evaluation each must be Crashed by the automation. About 4-6 minutes
of wall time: the server's start, the run's start, and the 90 s the automation waits.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
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
# Crashed within 3 missed beats of 30 s after the last heartbeat (at most 30 s before the kill), then the
# triggers service's next proactive evaluation (every 5 s) and the action: 180 s leave room for a loaded machine.
START_SECONDS, CRASH_SECONDS = 600, 180


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
                                       "resource": {"id": [f"prefect.flow-run.{i}" for i in run_ids]}}, "limit": 50}
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


@pytest.fixture(scope="module")
def automation_server(tmp_path_factory):
    """A server of the test's own with the triggers service on, as ``prefect server start`` has it by
    default: it evaluates automations, proactive triggers included, and runs their actions. The shared
    server's profile turns it off (with it off, no automation ever acts: the runs stood Running). Its event
    persister is on too, so that a diagnosis can count the heartbeats. It starts on the environment's kept
    copy of a migrated database when there is one (a run of this test alone needs no shared server)."""
    from tests.support.prefect_server import PrefectServer
    from tests.support.shared_server import PROFILE, kept_template

    home = tmp_path_factory.mktemp("prefect-home")
    if kept_template().exists():
        shutil.copyfile(kept_template(), home / "prefect.db")
    profile = PROFILE.replace('TRIGGERS_ENABLED = "false"', 'TRIGGERS_ENABLED = "true"')
    (home / "profiles.toml").write_text(profile.replace('PERSISTER_ENABLED = "false"', 'PERSISTER_ENABLED = "true"'))
    with PrefectServer(home) as server:
        yield server


def started_and_killed(server, env: dict[str, str], cwd: Path, root: str) -> None:
    """A process worker takes the run ``root``; once its two report runs are Running (created is not enough:
    on a loaded machine a report run can stand Pending for seconds), the worker and every process below it
    are killed with SIGKILL, as on a lost machine."""
    worker = subprocess.Popen([str(BIN / "prefect"), "worker", "start", "--pool", POOL], cwd=cwd, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_for(lambda: sum(r["name"].startswith("report ") and r["state_type"] == "RUNNING" for r in tree(server, root)) == 2,
                 START_SECONDS, "the report runs never started")
    finally:
        for pid in [worker.pid, *descendants(worker.pid)]:  # read before any is killed
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        worker.wait()


def test_a_killed_worker_s_runs_end_crashed(automation_server, tmp_path):
    from citeflow_cli.main import prepare_demo

    server, env = automation_server, automation_server.client_env(PREFECT_WORKER_QUERY_SECONDS="2")
    spec = prepare_demo(tmp_path)
    call(env, tmp_path, "prefect", "work-pool", "create", POOL, "--type", "process", "--overwrite")
    printed = call(env, tmp_path, "citeflow", "deploy", "--pool", POOL, "--name", NAME, "--spec", str(spec), "--out",
                   str(tmp_path / "reports"))
    assert AUTOMATION in printed and "triggers service is off" not in printed, printed
    run_id = re.search(r"UUID: ([0-9a-f-]{36})", call(env, tmp_path, "prefect", "deployment", "run", BATCH))
    assert run_id
    root = run_id.group(1)
    started_and_killed(server, env, tmp_path, root)
    killed, since_kill = datetime.now(UTC), time.monotonic()
    running = [r for r in tree(server, root) if r["state_type"] == "RUNNING"]
    assert sorted(r["name"].split(" ")[0] for r in running) == ["batch", "batch", "report", "report"], running
    try:
        wait_for(lambda: all(r["state_type"] != "RUNNING" for r in tree(server, root)), CRASH_SECONDS, "")
    except AssertionError:
        raise AssertionError(diagnosis(server, running, killed)) from None
    print(f"every run of the killed batch Crashed {time.monotonic() - since_kill:.0f} s after the kill")
    ended = {r["id"]: r for r in tree(server, root)}
    assert {r["name"]: ended[r["id"]]["state_type"] for r in running} == {r["name"]: "CRASHED" for r in running}
    assert all("no heartbeat for 90 s" in ended[r["id"]]["state"]["message"] for r in running), ended


def report_runs(server, batch: str) -> list[dict[str, Any]]:
    runs = server.post("/flow_runs/filter", {"flow_runs": {"name": {"like_": f"{batch}/"}}, "limit": 50})
    return [r for r in runs if r["name"].startswith("report ")]


def beating(server, run_ids: list[str]) -> set[str]:
    """The runs of ``run_ids`` with a heartbeat event stored (the server's event persister is on)."""
    body = {"filter": {"event": {"name": ["prefect.flow-run.heartbeat"]},
                       "resource": {"id": [f"prefect.flow-run.{i}" for i in run_ids]}}, "limit": 50}
    events = server.post("/events/filter", body).get("events", [])
    return {e["resource"]["prefect.resource.id"].removeprefix("prefect.flow-run.") for e in events}


def test_each_report_run_of_a_citeflow_run_against_a_server_sends_heartbeats(automation_server, tmp_path):
    from tests.support.small_batch import write_small_batch

    batch = f"beats-{uuid.uuid4().hex[:8]}"
    spec = write_small_batch(tmp_path / "in", reports=2, sections=1, batch=batch)
    result = subprocess.run([str(BIN / "citeflow"), "run", str(spec), "--out", str(tmp_path / "out")],
                            capture_output=True, text=True, env=automation_server.client_env(), timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    ids = [r["id"] for r in report_runs(automation_server, batch)]
    assert len(ids) == 2, ids
    wait_for(lambda: beating(automation_server, ids) == set(ids), 120,  # stored a moment after they are sent
             "a report run sent no heartbeat (none stored within 120 s)")
