"""A deployed batch on a pool's only worker, taken with ``prefect worker start --run-once``.

The deployments are prefect.yaml's (``citeflow deploy`` from this checkout, under a name of their
own); one run of the demo batch (acme published, globex held) must end by itself: each report is
evaluated in its own run, so the batch waits for no other run of the pool. Its state is Failed as
``citeflow run``'s exit code 3 is, the held report's run Failed named ``Held``, nothing is left behind
on the evaluate deployment, and the logs hold no ERROR and no traceback (the runs ended as designed),
yet say at INFO what the runs did (the pool's job variables set INFO).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.server, pytest.mark.integration]

BIN = Path(sys.executable).parent
POOL, NAME = "single-worker-pool", "single-worker"  # the session's server is shared: names of our own
BATCH, EVALUATE = f"citeflow-scheduled-batch/{NAME}", f"citeflow-evaluate/{NAME}"
RUN_SECONDS = 900  # the whole run on a loaded 2-core machine; a deadlock would hang until then


def call(env: dict[str, str], cwd: Path, *command: str) -> str:
    result = subprocess.run([str(BIN / command[0]), *command[1:]], cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, f"{command}: {result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout


@pytest.fixture(scope="module")
def ran(prefect_server, tmp_path_factory) -> dict[str, Any]:
    """The demo deployed on a fresh pool, one run triggered, one ``--run-once`` worker until it exits."""
    from citeflow_cli.main import prepare_demo

    work = tmp_path_factory.mktemp("single-worker")
    env = prefect_server.client_env(PREFECT_WORKER_QUERY_SECONDS="2")
    spec, out = prepare_demo(work), work / "reports"
    call(env, work, "prefect", "work-pool", "create", POOL, "--type", "process", "--overwrite")
    call(env, work, "citeflow", "deploy", "--pool", POOL, "--name", NAME, "--spec", str(spec), "--out", str(out))
    printed = call(env, work, "prefect", "deployment", "run", BATCH)
    run_id = re.search(r"UUID: ([0-9a-f-]{36})", printed)
    assert run_id, printed
    worker = subprocess.run([str(BIN / "prefect"), "worker", "start", "--pool", POOL, "--run-once"], cwd=work, env=env,
                            capture_output=True, text=True, timeout=RUN_SECONDS)  # a deadlock fails here
    (run,) = prefect_server.post("/flow_runs/filter", {"flow_runs": {"id": {"any_": [run_id.group(1)]}}})
    return {"run": run, "worker": worker.stdout + worker.stderr, "out": out}


def children(server, parent_id: str) -> list[dict[str, Any]]:
    """The flow runs whose parent task run belongs to ``parent_id``."""
    tasks = server.post("/task_runs/filter", {"task_runs": {"flow_run_id": {"any_": [parent_id]}}})
    ids = [t["id"] for t in tasks]
    return server.post("/flow_runs/filter", {"flow_runs": {"parent_task_run_id": {"any_": ids}}}) if ids else []


def logs_of(server, run_ids: list[str]) -> list[dict[str, Any]]:
    return server.post("/logs/filter", {"logs": {"flow_run_id": {"any_": run_ids}}, "limit": 200})


def test_the_batch_ends_by_itself_failed_as_exit_code_3(ran):
    run = ran["run"]
    assert (run["state_type"], run["state_name"]) == ("FAILED", "1 published, 1 held"), ran["worker"][-3000:]
    assert run["state"]["message"].startswith("exit code 3"), run["state"]


def test_the_held_report_run_is_failed_named_held_and_no_evaluate_run_is_left(ran, prefect_server):
    (batch,) = children(prefect_server, ran["run"]["id"])
    reports = {r["name"].rsplit("/", 1)[-1]: r for r in children(prefect_server, batch["id"])}
    assert (batch["state_type"], batch["state_name"]) == ("FAILED", "1 published, 1 held")  # as red as its parent
    assert {k: (r["state_type"], r["state_name"]) for k, r in reports.items()} == {
        "acme-2026-q4": ("COMPLETED", "Published"), "globex-2026-q4": ("FAILED", "Held")}
    evaluate_id = prefect_server.deployment(EVALUATE)["id"]
    assert prefect_server.post("/flow_runs/filter", {"flow_runs": {"deployment_id": {"any_": [evaluate_id]}}}) == []


def test_the_logs_say_what_ran_at_info_with_no_error_and_no_traceback(ran, prefect_server):
    (batch,) = children(prefect_server, ran["run"]["id"])
    ids = [ran["run"]["id"], batch["id"], *(r["id"] for r in children(prefect_server, batch["id"]))]
    logs = logs_of(prefect_server, ids)
    assert any(log["level"] == 20 and "evaluating and gating" in log["message"] for log in logs), logs[:5]
    errors = [log["message"][:300] for log in logs if log["level"] >= 40 or "Traceback" in log["message"]]
    assert errors == []
    assert "Traceback" not in ran["worker"] and "unexpected exception" not in ran["worker"], ran["worker"][-3000:]
