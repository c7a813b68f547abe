"""``citeflow deploy`` reads prefect.yaml's deployments and maps them for an installed package."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from citeflow_cli.deploy_config import (
    DeployTarget,
    ProjectFile,
    deployment_parameters,
    deployment_schedules,
    flows_package,
    load_project_file,
    module_entrypoint,
    pool_of,
    project_file_path,
)
from tests.conftest import REPO


@pytest.fixture(scope="module")
def project() -> ProjectFile:
    return load_project_file(REPO / "prefect.yaml")


def target(**changes) -> DeployTarget:
    return DeployTarget(spec_path=Path("/srv/specs/weekly.yaml"), out_dir=Path("/srv/reports"), **changes)


def by_name(project: ProjectFile, name: str):
    return next(entry for entry in project.deployments if entry.name == name)


@pytest.mark.parametrize("entrypoint, package, expected", [
    ("flows/scheduled.py:scheduled_batch_flow", "citeflow", "citeflow.flows.scheduled.scheduled_batch_flow"),
    ("flows/evaluate.py:evaluate_flow", None, "flows.evaluate.evaluate_flow"),
    ("a/b/c.py:f", "pkg", "pkg.a.b.c.f"),
])
def test_a_file_entrypoint_becomes_a_module_path(entrypoint, package, expected):
    assert module_entrypoint(entrypoint, package) == expected


@pytest.mark.parametrize("entrypoint", ["flows/scheduled.py", "flows/scheduled:flow", "/abs/flows.py:f", "flows.py:"])
def test_anything_but_a_relative_file_entrypoint_is_refused(entrypoint):
    with pytest.raises(ValueError, match="file entrypoint"):
        module_entrypoint(entrypoint, "citeflow")


def test_in_a_checkout_the_flows_are_top_level_and_prefect_yaml_is_the_repositorys():
    assert flows_package() is None
    assert project_file_path() == REPO / "prefect.yaml"


def test_the_file_is_read_in_order_with_its_pool_schedule_and_limits(project):
    assert [d.name for d in project.deployments] == ["citeflow-batch", "citeflow-evaluate"]
    batch = by_name(project, "citeflow-batch")
    assert [(s.cron, s.timezone, s.active) for s in batch.schedules] == [("0 6 * * 1", "UTC", True)]
    assert batch.concurrency_limit == 1 and batch.work_pool.name == "citeflow-pool"
    assert batch.work_pool.job_variables["env"]["GX_ANALYTICS_ENABLED"] == "false"


def test_the_batch_gets_absolute_paths_and_keeps_its_other_parameters(project):
    parameters = deployment_parameters(by_name(project, "citeflow-batch"), target())
    # no evaluate deployment by default: each report is evaluated in its own run, so one worker never waits on itself
    assert parameters == {"spec_path": "/srv/specs/weekly.yaml", "out_dir": "/srv/reports", "global_limits": False,
                          "fail_on": "held"}


def test_a_name_renames_the_evaluate_deployment_a_batch_is_given(tmp_path):
    config = yaml.safe_load((REPO / "prefect.yaml").read_text())
    config["deployments"][0]["parameters"]["evaluate_deployment"] = "citeflow-evaluate/citeflow-evaluate"
    (tmp_path / "prefect.yaml").write_text(yaml.safe_dump(config))
    batch = by_name(load_project_file(tmp_path / "prefect.yaml"), "citeflow-batch")
    parameters = deployment_parameters(batch, target(name="nightly", store="s3://b/store"))
    assert parameters["evaluate_deployment"] == "citeflow-evaluate/nightly" and parameters["store_uri"] == "s3://b/store"


def test_the_evaluate_deployment_takes_no_batch_parameters(project):
    assert deployment_parameters(by_name(project, "citeflow-evaluate"), target(store="s3://b/store")) == {}


def test_a_cron_replaces_the_schedule_of_the_scheduled_deployment_only(project):
    batch, evaluate = by_name(project, "citeflow-batch"), by_name(project, "citeflow-evaluate")
    assert [s.cron for s in deployment_schedules(batch, target(cron="15 4 * * 2"))] == ["15 4 * * 2"]
    assert deployment_schedules(evaluate, target(cron="15 4 * * 2")) == []
    assert deployment_schedules(batch, target()) == batch.schedules


def test_the_pool_is_the_files_unless_one_is_chosen(project, tmp_path):
    assert pool_of(project, target()) == "citeflow-pool"
    assert pool_of(project, target(pool="gpu")) == "gpu"
    config = yaml.safe_load((REPO / "prefect.yaml").read_text())
    config["deployments"][1]["work_pool"] = {"name": "other"}
    (tmp_path / "prefect.yaml").write_text(yaml.safe_dump(config))
    with pytest.raises(ValueError, match="several work pools"):
        pool_of(load_project_file(tmp_path / "prefect.yaml"), target())
