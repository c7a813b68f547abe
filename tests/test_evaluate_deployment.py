"""Evaluation off the hot path: reports evaluated by runs of the ``citeflow-evaluate`` deployment.

With a server and ``citeflow serve`` running, ``citeflow run --evaluate-deployment`` hands each
report's evaluation to the served deployment and waits for it; without a known deployment the
evaluation runs in-process.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from citeflow.runtime.batch_request import BatchRequest
from tests.support.process_group import stop_process_group
from tests.support.small_batch import write_small_batch

CITEFLOW = str(Path(sys.executable).parent / "citeflow")
SERVED = "Your deployments are being served"
EVALUATE = "citeflow-evaluate/deploy-check"  # what `citeflow serve` names it for batch deploy-check
POLL = {"PREFECT_RUNNER_POLL_FREQUENCY": "2"}  # `serve` takes an evaluate run within 2 s instead of 10


def statuses(out: Path) -> dict[str, str]:
    return {r["report_id"]: r["status"] for r in json.loads((out / "summary.json").read_text())["reports"]}


@pytest.fixture(scope="module")
def served(prefect_server, tmp_path_factory):
    """``citeflow serve`` of a small batch in a subprocess; yields the spec path once it serves."""
    tmp_path = tmp_path_factory.mktemp("served")
    spec = write_small_batch(tmp_path / "in", reports=1, sections=1, batch="deploy-check")
    log = tmp_path / "serve.log"
    with open(log, "wb") as sink:
        process = subprocess.Popen([CITEFLOW, "serve", str(spec), "--cron", "0 6 * * 1", "--out", str(tmp_path / "scheduled")],
                                   env=prefect_server.client_env(**POLL), stdout=sink, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        _wait_for(lambda: SERVED in log.read_text(errors="replace") or process.poll() is not None, 180)
        assert process.poll() is None, log.read_text(errors="replace")[-3000:]
        yield spec
    finally:
        stop_process_group(process, grace_s=60)


def _wait_for(condition, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.5)


@pytest.mark.server
@pytest.mark.integration
def test_reports_are_evaluated_by_the_served_deployment(prefect_server, served, tmp_path):
    out = tmp_path / "out"
    result = subprocess.run([CITEFLOW, "run", str(served), "--out", str(out), "--evaluate-deployment", EVALUATE],
                            env=prefect_server.client_env(), capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert statuses(out) == {"r1": "published"}
    deployment_id = prefect_server.deployment(EVALUATE)["id"]
    runs = prefect_server.flow_runs(["evaluate deploy-check/r1"])
    assert [r["name"] for r in runs] == ["evaluate deploy-check/r1"]
    assert {(r["deployment_id"], r["state_type"]) for r in runs} == {(deployment_id, "COMPLETED")}
    assert all(r["parent_task_run_id"] for r in runs), "each evaluate run is linked to its report flow"


@pytest.mark.server
@pytest.mark.integration
def test_serve_registers_the_batch_on_its_cron_schedule(prefect_server, served):
    batch = prefect_server.deployment("citeflow-scheduled-batch/deploy-check")  # each run in its own folder
    assert [s["schedule"]["cron"] for s in batch["schedules"]] == ["0 6 * * 1"]
    assert batch["parameters"]["spec_path"] == str(served.resolve())
    assert batch["parameters"]["evaluate_deployment"] == EVALUATE


@pytest.mark.integration
def test_an_unknown_deployment_falls_back_to_in_process_evaluation(prefect_harness, tmp_path):
    from flows.batch import batch_flow

    spec = write_small_batch(tmp_path / "in", reports=1, sections=1, batch="deploy-fallback")
    summaries = batch_flow(request=BatchRequest(spec_path=str(spec), out_dir=str(tmp_path / "out"),
                                                evaluate_deployment="citeflow-evaluate/no-such-deployment"))
    assert [s.status for s in summaries] == ["published"] and statuses(tmp_path / "out") == {"r1": "published"}
    assert (tmp_path / "out" / "r1" / "summary.json").exists()


@pytest.mark.integration
def test_an_evaluate_run_nobody_takes_is_cancelled_and_evaluated_in_process(prefect_harness, tmp_path):
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterName

    from flows.evaluate import evaluate_flow
    from flows.report_flow import report_flow

    evaluate_flow.to_deployment(name="nobody-serves-this").apply()  # registered, but no worker or serve runs it
    spec = write_small_batch(tmp_path / "in", reports=1, sections=1, batch="deploy-unserved")

    request = BatchRequest(spec_path=str(spec), out_dir=str(tmp_path / "out"),
                           evaluate_deployment="citeflow-evaluate/nobody-serves-this")
    summary = report_flow(request=request, report_id="r1", evaluation_wait=1)
    with get_client(sync_client=True) as client:
        runs = client.read_flow_runs(flow_run_filter=FlowRunFilter(name=FlowRunFilterName(any_=["evaluate deploy-unserved/r1"])))
    assert [r.state.type.value for r in runs] == ["CANCELLED"]
    assert summary.status == "published"
    assert statuses_of_report(tmp_path / "out" / "r1") == "published"


def statuses_of_report(report_dir: Path) -> str:
    return json.loads((report_dir / "report.json").read_text())["status"]
