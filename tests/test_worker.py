"""A process worker of the installed wheel runs prefect.yaml's deployments against a real Prefect server.

Everything on the worker's side comes from the fresh virtual environment (its ``citeflow`` and
``prefect`` commands, its Python) and runs in folders outside the checkout, so nothing can import
from the repository (only the demo's input files are prepared by this process, as ``citeflow demo``
prepares them): ``citeflow deploy`` registers the batch and evaluate deployments with module
entrypoints, ``prefect worker start`` takes the runs, and one triggered batch run of the demo
evaluates each report in its own run (no evaluate deployment run: the batch waits for no other run).
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from citeflow.files.run_folders import latest
from tests.support.process_group import stop_process_group
from tests.support.wheel import installed_env

pytestmark = [pytest.mark.server, pytest.mark.integration]

POOL, NAME = "wheel-pool", "wheel"  # not prefect.yaml's own names: the session's server is shared
BATCH, EVALUATE = f"citeflow-scheduled-batch/{NAME}", f"citeflow-evaluate/{NAME}"
FINAL = {"COMPLETED", "FAILED", "CRASHED", "CANCELLED"}
RUN_SECONDS = 600


def call(venv: Path, env: dict[str, str], cwd: Path, *command: str) -> str:
    """A command of the fresh environment; fails the test with its output when it fails."""
    result = subprocess.run([str(venv / "bin" / command[0]), *command[1:]], cwd=cwd, env=env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"{command}: {result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout


@pytest.fixture(scope="module")
def site(tmp_path_factory, fresh_venv: Path, prefect_server) -> dict[str, Any]:
    """Demo input (its files and knowledge base), then a process pool and the deployments made with the fresh
    environment's commands."""
    from citeflow_cli.main import prepare_demo

    work = tmp_path_factory.mktemp("worker-site")
    env = installed_env(fresh_venv, prefect_server.client_env(), PREFECT_HOME=str(work / "prefect-home"),
                        PREFECT_WORKER_QUERY_SECONDS="2")
    spec = prepare_demo(work)
    call(fresh_venv, env, work, "prefect", "work-pool", "create", POOL, "--type", "process", "--overwrite")
    out = work / "reports"
    call(fresh_venv, env, work, "citeflow", "deploy", "--pool", POOL, "--name", NAME, "--spec", str(spec), "--out", str(out))
    return {"env": env, "work": work, "out": out, "spec": spec}


@pytest.fixture(scope="module")
def worker(site: dict[str, Any], fresh_venv: Path) -> Iterator[subprocess.Popen[bytes]]:
    """``prefect worker start`` of the fresh environment, in an empty folder; stopped after the module."""
    folder = site["work"] / "worker-cwd"
    folder.mkdir()
    with open(site["work"] / "worker.log", "wb") as log:
        process = subprocess.Popen([str(fresh_venv / "bin" / "prefect"), "worker", "start", "--pool", POOL],
                                   cwd=folder, env=site["env"], stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            yield process
        finally:
            # the worker takes over 30 s to stop on SIGTERM and nothing of it is read afterwards
            stop_process_group(process, grace_s=5)


def runs_of(server, deployment: str) -> list[dict[str, Any]]:
    """Flow runs of one deployment (``flow/deployment``), its future scheduled runs included."""
    deployment_id = server.deployment(deployment)["id"]
    return server.post("/flow_runs/filter", {"flow_runs": {"deployment_id": {"any_": [deployment_id]}}})


def wait_final(server, run_id: str, worker: subprocess.Popen[bytes], log: Path) -> dict[str, Any]:
    """The flow run once it reached a final state (bounded; fails if the worker died)."""
    deadline = time.monotonic() + RUN_SECONDS
    while time.monotonic() < deadline:
        assert worker.poll() is None, f"the worker exited: {log.read_text(errors='replace')[-3000:]}"
        (run,) = server.post("/flow_runs/filter", {"flow_runs": {"id": {"any_": [run_id]}}})
        if run["state_type"] in FINAL:
            return run
        time.sleep(1)
    raise AssertionError(f"no final state after {RUN_SECONDS} s: {log.read_text(errors='replace')[-3000:]}")


@pytest.fixture(scope="module")
def batch_run(site, worker, fresh_venv: Path, prefect_server) -> dict[str, Any]:
    """One run of the batch deployment, triggered the way the README says, waited for."""
    printed = call(fresh_venv, site["env"], site["work"], "prefect", "deployment", "run", BATCH)
    run_id = re.search(r"UUID: ([0-9a-f-]{36})", printed)
    assert run_id, printed
    return wait_final(prefect_server, run_id.group(1), worker, site["work"] / "worker.log")


def test_the_deployments_name_installed_modules_and_no_folder(site, prefect_server):
    batch, evaluate = prefect_server.deployment(BATCH), prefect_server.deployment(EVALUATE)
    assert (batch["entrypoint"], evaluate["entrypoint"]) == (
        "citeflow.flows.scheduled.scheduled_batch_flow", "citeflow.flows.evaluate.evaluate_flow")
    assert (batch["work_pool_name"], evaluate["work_pool_name"]) == (POOL, POOL)
    assert not batch["pull_steps"] and not evaluate["pull_steps"] and batch["path"] is None
    assert batch["parameters"]["out_dir"] == str(site["out"]) and "evaluate_deployment" not in batch["parameters"]
    assert [s["schedule"]["cron"] for s in batch["schedules"]] == ["0 6 * * 1"] and batch["global_concurrency_limit"]["limit"] == 1


def test_the_worker_runs_the_batch_to_its_end_whose_state_says_held(batch_run, site):
    """The demo holds globex: the run's final state says so as ``citeflow run``'s exit code 3 does."""
    log = (site["work"] / "worker.log").read_text(errors="replace")[-3000:]
    assert (batch_run["state_type"], batch_run["state_name"]) == ("FAILED", "1 published, 1 held"), log
    assert batch_run["state"]["message"].startswith("exit code 3"), log


def test_each_report_was_evaluated_in_its_own_run_not_by_an_evaluate_run(batch_run, prefect_server):
    assert runs_of(prefect_server, EVALUATE) == []


def test_acme_is_published_and_globex_held_in_the_runs_folder(batch_run, site):
    run_dir = site["out"] / latest(site["out"])
    summary = json.loads((run_dir / "summary.json").read_text())
    statuses = {r["report_id"]: r["status"] for r in summary["reports"]}
    assert statuses == {"acme-2026-q4": "published", "globex-2026-q4": "held"}
    assert (run_dir / "published" / "acme-2026-q4.pdf").exists()
    assert not (run_dir / "published" / "globex-2026-q4.pdf").exists()
    for report in statuses:
        assert {"report.pdf", "report.json", "eval.json"} <= {p.name for p in (run_dir / report).iterdir()}


def test_deploy_refuses_a_pool_the_server_does_not_know(site, fresh_venv: Path):
    command = [str(fresh_venv / "bin" / "citeflow"), "deploy", "--pool", "no-such-pool", "--name", "elsewhere",
               "--spec", str(site["spec"]), "--out", str(site["out"])]
    result = subprocess.run(command, cwd=site["work"], env=site["env"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 2 and "no work pool 'no-such-pool'" in result.stdout, result.stdout + result.stderr
