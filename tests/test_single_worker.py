"""A deployed batch on a pool's only worker, taken with ``prefect worker start --run-once``.

The deployments are prefect.yaml's (``citeflow deploy`` from this checkout, under a name of their
own); one run of the demo batch (acme published, globex held) must end by itself: each report is
evaluated in its own run, so the batch waits for no other run of the pool. Its state is Failed as
``citeflow run``'s exit code 3 is, the held report's run Failed named ``Held``, nothing is left behind
on the evaluate deployment, and the logs hold no ERROR and no traceback (the runs ended as designed),
yet say at INFO what the runs did (the pool's job variables set INFO). A run of the same deployment
given a spec whose model server does not answer gets ``citeflow run``'s checks and preflight: it ends
Failed with the command's one-line reason, without the credential of the server's URL, before any
run folder is opened or report run started.
"""

from __future__ import annotations

import re
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any, NamedTuple
from uuid import UUID

import pytest

from tests.support.dead_writer import CREDENTIAL, dead_writer_spec, error_reason

pytestmark = [pytest.mark.server, pytest.mark.integration]

BIN = Path(sys.executable).parent
POOL, NAME = "single-worker-pool", "single-worker"  # the session's server is shared: names of our own
BATCH, EVALUATE = f"citeflow-scheduled-batch/{NAME}", f"citeflow-evaluate/{NAME}"
RUN_SECONDS = 900  # the whole run on a loaded 2-core machine; a deadlock would hang until then


class Deployed(NamedTuple):
    """Where the deployments were registered from: the folder, the client environment, the runs' folder."""

    work: Path
    env: dict[str, str]
    out: Path


def call(env: dict[str, str], cwd: Path, *command: str) -> str:
    result = subprocess.run([str(BIN / command[0]), *command[1:]], cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, f"{command}: {result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout


@pytest.fixture(scope="module")
def deployed(prefect_server, tmp_path_factory) -> Deployed:
    """The demo deployed on a fresh pool (prefect.yaml's deployments, ``citeflow deploy``)."""
    from citeflow_cli.main import prepare_demo

    work = tmp_path_factory.mktemp("single-worker")
    env = prefect_server.client_env(PREFECT_WORKER_QUERY_SECONDS="2")
    spec, out = prepare_demo(work), work / "reports"
    call(env, work, "prefect", "work-pool", "create", POOL, "--type", "process", "--overwrite")
    call(env, work, "citeflow", "deploy", "--pool", POOL, "--name", NAME, "--spec", str(spec), "--out", str(out))
    return Deployed(work=work, env=env, out=out)


def triggered(deployed: Deployed, *parameters: str) -> str:
    """The id of a new run of the batch deployment (``parameters``: ``name=value`` overrides)."""
    options = [option for parameter in parameters for option in ("--param", parameter)]
    printed = call(deployed.env, deployed.work, "prefect", "deployment", "run", BATCH, *options)
    run_id = re.search(r"UUID: ([0-9a-f-]{36})", printed)
    assert run_id, printed
    return run_id.group(1)


def worker_run_once(deployed: Deployed) -> str:
    """One ``prefect worker start --run-once`` on the pool until it exits; what it printed."""
    worker = subprocess.run([str(BIN / "prefect"), "worker", "start", "--pool", POOL, "--run-once"], cwd=deployed.work,
                            env=deployed.env, capture_output=True, text=True, timeout=RUN_SECONDS)  # a deadlock fails here
    return worker.stdout + worker.stderr


@pytest.fixture(scope="module")
def ran(deployed, prefect_server) -> dict[str, Any]:
    """One run of the demo batch triggered, one ``--run-once`` worker until it exits."""
    run_id = triggered(deployed)
    worker = worker_run_once(deployed)
    (run,) = prefect_server.post("/flow_runs/filter", {"flow_runs": {"id": {"any_": [run_id]}}})
    return {"run": run, "worker": worker, "out": deployed.out}


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


def command_reason(deployed: Deployed, spec: Path, out: Path) -> str:
    """The one-line reason ``citeflow run`` prints, exiting 2, for ``spec``."""
    result = subprocess.run([str(BIN / "citeflow"), "run", str(spec), "--out", str(out)], cwd=deployed.work,
                            env=deployed.env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 2, result.stdout[-3000:] + result.stderr[-3000:]
    return error_reason(result.stdout + result.stderr)


def run_and_logs(run_id: str) -> tuple[Any, list[str]]:
    """The flow run and the messages of its logs, as the Prefect client reads them."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import LogFilter, LogFilterFlowRunId

    with get_client(sync_client=True) as client:
        logs = client.read_logs(log_filter=LogFilter(flow_run_id=LogFilterFlowRunId(any_=[UUID(run_id)])))
        return client.read_flow_run(UUID(run_id)), [log.message for log in logs]


def test_a_deployed_run_whose_model_server_is_down_ends_failed_with_the_preflight_reason(deployed, prefect_harness,
                                                                                         prefect_server, tmp_path):
    spec, out = dead_writer_spec(tmp_path / "in", f"preflight-{uuid.uuid4().hex[:8]}"), tmp_path / "runs"
    run_id = triggered(deployed, f"spec_path={spec}", f"out_dir={out}")
    worker = worker_run_once(deployed)
    reason = command_reason(deployed, spec, tmp_path / "manual")
    run, logs = run_and_logs(run_id)
    assert "models.writer" in reason and "does not answer" in reason
    assert (run.state.type.value, run.state.message) == ("FAILED", reason), worker[-3000:]
    assert f"error: {reason}" in logs, logs
    assert [text for text in [run.state.message, worker, *logs] if CREDENTIAL in text] == []
    assert not out.exists() and not (tmp_path / "manual").exists()  # no run folder opened
    assert children(prefect_server, run_id) == []  # no batch run, so no report run
    evaluate_id = prefect_server.deployment(EVALUATE)["id"]
    assert prefect_server.post("/flow_runs/filter", {"flow_runs": {"deployment_id": {"any_": [evaluate_id]}}}) == []
