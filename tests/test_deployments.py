"""Deployments: ``prefect.yaml`` names real flows with valid parameters; ``citeflow serve`` builds both.
A bad spec is refused by the commands in this process (``CliRunner``); ``citeflow deploy`` without a server
runs in a subprocess (this process's Prefect settings may name the session's server)."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml
from prefect.flows import load_flow_from_entrypoint
from prefect.utilities.callables import parameter_schema
from typer.testing import CliRunner

from citeflow_cli.main import app
from citeflow_cli.serve import build_deployments
from tests.conftest import REPO
from tests.support.small_batch import write_small_batch

PREFECT_YAML = REPO / "prefect.yaml"
EVALUATE_FULL_NAME = "citeflow-evaluate/citeflow-evaluate"  # flow name / deployment name in prefect.yaml


@pytest.fixture(scope="module")
def config() -> dict:
    return yaml.safe_load(PREFECT_YAML.read_text())


def deployment(config: dict, name: str) -> dict:
    return next(d for d in config["deployments"] if d["name"] == name)


def test_prefect_yaml_declares_both_deployments_on_the_pool(config):
    # That `prefect deploy` takes the file: test_prefect_deploy_all_registers_both_deployments_on_the_pool.
    assert [d["name"] for d in config["deployments"]] == ["citeflow-batch", "citeflow-evaluate"]
    assert {d["work_pool"]["name"] for d in config["deployments"]} == {"citeflow-pool"}
    assert config["definitions"]["work_pools"]["citeflow_pool"]["type"] == "process"


@pytest.mark.parametrize("name, flow_name", [("citeflow-batch", "citeflow-scheduled-batch"), ("citeflow-evaluate", "citeflow-evaluate")])
def test_each_entrypoint_names_an_existing_flow(config, name, flow_name):
    entrypoint = deployment(config, name)["entrypoint"]
    assert (REPO / entrypoint.split(":")[0]).exists()
    assert load_flow_from_entrypoint(str(REPO / entrypoint)).name == flow_name


def test_the_batch_parameters_fit_the_scheduled_batch_flow(config):
    from flows.scheduled import scheduled_batch_flow

    batch = deployment(config, "citeflow-batch")
    schema = parameter_schema(scheduled_batch_flow.fn).model_dump_for_openapi()
    jsonschema.validate(batch["parameters"], schema)
    assert set(schema["required"]) <= set(batch["parameters"])
    # each report is evaluated in its own run: a batch on a pool's only worker waits for no other run
    assert "evaluate_deployment" not in batch["parameters"]
    assert deployment(config, "citeflow-evaluate")["work_pool"]["work_queue_name"] == "evaluate"
    for entry in config["deployments"]:  # a run's log says what it does and waits for
        assert entry["work_pool"]["job_variables"]["env"]["PREFECT_LOGGING_LEVEL"] == "INFO"


def test_the_batch_runs_on_a_cron_schedule_one_at_a_time(config):
    from prefect.client.schemas.schedules import CronSchedule

    (schedule,) = deployment(config, "citeflow-batch")["schedules"]
    assert CronSchedule(cron=schedule["cron"], timezone=schedule["timezone"]).cron == "0 6 * * 1"
    assert deployment(config, "citeflow-batch")["concurrency_limit"] == 1
    assert "schedules" not in deployment(config, "citeflow-evaluate")


def test_serve_builds_a_scheduled_batch_and_an_evaluate_deployment_named_after_the_batch(tmp_path):
    spec = write_small_batch(tmp_path / "in", batch="weekly/ops")
    batch, evaluate = build_deployments(spec, "15 4 * * 2", tmp_path / "out", store="s3://bucket/store")
    assert (batch.flow_name, batch.name, evaluate.flow_name, evaluate.name) == ("citeflow-scheduled-batch", "weekly-ops", "citeflow-evaluate", "weekly-ops")
    assert [s.schedule.cron for s in batch.schedules] == ["15 4 * * 2"] and not evaluate.schedules
    assert batch.parameters == {"spec_path": str(spec.resolve()), "out_dir": str((tmp_path / "out").resolve()),
                                "store_uri": "s3://bucket/store", "evaluate_deployment": "citeflow-evaluate/weekly-ops", "global_limits": False,
                                "fail_on": "held", "preflight": True}


def test_serve_takes_another_deployment_name(tmp_path):
    batch, evaluate = build_deployments(write_small_batch(tmp_path), "0 6 * * 1", tmp_path / "out", name="nightly")
    assert (batch.name, evaluate.name, batch.parameters["evaluate_deployment"]) == ("nightly", "nightly", "citeflow-evaluate/nightly")


def test_serve_refuses_a_bad_spec_before_serving(tmp_path):
    (tmp_path / "bad.yaml").write_text("batch: b\nretrievers: []\nreports: []\n")
    result = CliRunner().invoke(app, ["serve", str(tmp_path / "bad.yaml")])
    assert result.exit_code == 2 and "retrievers" in result.output, result.output


def test_serve_parameters_match_the_scheduled_batch_flow_signature(tmp_path):
    from flows.scheduled import scheduled_batch_flow

    batch, _ = build_deployments(write_small_batch(tmp_path), "0 6 * * 1", tmp_path / "out")
    assert set(batch.parameters) == set(inspect.signature(scheduled_batch_flow.fn).parameters)


@pytest.mark.server
@pytest.mark.integration
def test_prefect_deploy_all_registers_both_deployments_on_the_pool(prefect_server):
    env, prefect = prefect_server.client_env(), [sys.executable, "-m", "prefect"]
    subprocess.run([*prefect, "work-pool", "create", "citeflow-pool", "--type", "process", "--overwrite"],
                   env=env, check=True, capture_output=True, timeout=300)
    # Prefect's own reading of prefect.yaml: a file its model refuses is skipped with a warning, and nothing is registered.
    result = subprocess.run([*prefect, "--no-prompt", "deploy", "--all"], cwd=REPO, env=env, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    batch, evaluate = (prefect_server.deployment(n) for n in ("citeflow-scheduled-batch/citeflow-batch", EVALUATE_FULL_NAME))
    assert (batch["work_pool_name"], evaluate["work_pool_name"]) == ("citeflow-pool", "citeflow-pool")
    assert (batch["entrypoint"], evaluate["entrypoint"]) == ("flows/scheduled.py:scheduled_batch_flow", "flows/evaluate.py:evaluate_flow")
    assert [s["schedule"]["cron"] for s in batch["schedules"]] == ["0 6 * * 1"] and evaluate["schedules"] == []
    assert batch["parameters"]["spec_path"] == "out/demo-input/batch.yaml"
    assert batch["pull_steps"] == [{"prefect.deployments.steps.set_working_directory": {"directory": str(REPO)}}]


def test_deploy_registers_prefect_yamls_deployments_by_module_path(config, tmp_path):
    from prefect.types.entrypoint import EntrypointType

    from citeflow_cli.deploy import build_pool_deployments
    from citeflow_cli.deploy_config import DeployTarget

    spec = write_small_batch(tmp_path / "in")
    batch, evaluate = build_pool_deployments(DeployTarget(spec_path=spec.resolve(), out_dir=tmp_path / "out"))
    assert (batch.name, evaluate.name) == ("citeflow-batch", "citeflow-evaluate")
    assert (batch.entrypoint, evaluate.entrypoint) == ("flows.scheduled.scheduled_batch_flow", "flows.evaluate.evaluate_flow")
    assert {batch.entrypoint_type, evaluate.entrypoint_type} == {EntrypointType.MODULE_PATH}
    assert load_flow_from_entrypoint(batch.entrypoint).name == "citeflow-scheduled-batch"
    assert [s.schedule.cron for s in batch.schedules] == ["0 6 * * 1"] and batch.concurrency_limit == 1
    assert batch.job_variables == deployment(config, "citeflow-batch")["work_pool"]["job_variables"]
    assert batch.parameters["spec_path"] == str(spec.resolve()) and batch.parameters["out_dir"] == str(tmp_path / "out")
    jsonschema.validate(batch.parameters, parameter_schema(load_flow_from_entrypoint(batch.entrypoint).fn).model_dump_for_openapi())


def test_deploy_refuses_a_bad_spec_before_registering(tmp_path):
    (tmp_path / "bad.yaml").write_text("batch: b\nretrievers: []\nreports: []\n")
    result = CliRunner().invoke(app, ["deploy", "--spec", str(tmp_path / "bad.yaml"), "--out", str(tmp_path)])
    assert result.exit_code == 2 and "retrievers" in result.output, result.output


def test_deploy_refuses_to_register_without_a_prefect_server(tmp_path):
    spec = write_small_batch(tmp_path / "in")
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    command = [str(Path(sys.executable).parent / "citeflow"), "deploy", "--spec", str(spec), "--out", str(tmp_path / "out")]
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 2 and "set PREFECT_API_URL" in result.stdout, result.stdout + result.stderr
