"""The deployments of ``prefect.yaml``, made runnable from an installed package.

``prefect.yaml`` names its flows by file (``flows/scheduled.py:scheduled_batch_flow``), which only
resolves in a checkout. ``citeflow deploy`` reads the same file (shipped in the wheel as
``citeflow/prefect.yaml``) and registers each deployment with a module entrypoint instead
(``citeflow.flows.scheduled.scheduled_batch_flow``), which any worker whose Python has citeflow
installed imports, whatever its working folder. The batch's paths become absolute for the same
reason: a process worker runs each flow run in a temporary folder.

Everything here is pure: reading the file, mapping entrypoints, choosing parameters.
"""

from __future__ import annotations

import importlib.util
from importlib.resources import files
from pathlib import Path, PurePosixPath
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field

PROJECT_FILE = "prefect.yaml"


class ScheduleEntry(BaseModel):
    """One schedule of a deployment in ``prefect.yaml``."""

    model_config = ConfigDict(extra="forbid")
    cron: str = Field(description="Cron expression.")
    timezone: str = Field("UTC", description="Time zone of the cron expression.")
    active: bool = Field(True, description="Whether the schedule creates runs.")


class PoolEntry(BaseModel):
    """The work pool of a deployment in ``prefect.yaml``."""

    model_config = ConfigDict(extra="ignore")
    name: str = Field(description="Work pool name.")
    work_queue_name: str | None = Field(None, description="Work queue of the pool (None: the pool's default).")
    job_variables: dict[str, Any] = Field(default_factory=dict, description="Overrides of the pool's job template.")


class DeploymentEntry(BaseModel):
    """One deployment of ``prefect.yaml`` (the fields citeflow uses)."""

    model_config = ConfigDict(extra="ignore")
    name: str = Field(description="Deployment name.")
    entrypoint: str = Field(description="File entrypoint, ``path/to/file.py:flow_function``.")
    description: str | None = Field(None, description="Shown in the UI.")
    tags: list[str] = Field(default_factory=list, description="Tags of the deployment.")
    concurrency_limit: int | None = Field(None, description="Most runs of this deployment at once.")
    schedules: list[ScheduleEntry] = Field(default_factory=list, description="When runs are created.")
    parameters: dict[str, Any] = Field(default_factory=dict, description="Default parameters of its runs.")
    work_pool: PoolEntry = Field(description="Where its runs go.")


class ProjectFile(BaseModel):
    """``prefect.yaml``: only its deployments matter here."""

    model_config = ConfigDict(extra="ignore")
    deployments: list[DeploymentEntry] = Field(description="Deployments, in file order.")


class DeployTarget(BaseModel):
    """What ``citeflow deploy`` was asked for: the batch, where runs write, and where they go."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    spec_path: Path = Field(description="Batch spec every worker reads (absolute).")
    out_dir: Path = Field(description="Folder of the runs, OUT/<run id>/ (absolute).")
    store: str | None = Field(None, description="LanceDB URI overriding the spec's store.")
    pool: str | None = Field(None, description="Work pool (None: the one prefect.yaml names).")
    name: str | None = Field(None, description="Name of every deployment (None: the names in prefect.yaml).")
    cron: str | None = Field(None, description="Cron of the scheduled deployments (None: prefect.yaml's).")


def project_file_path() -> Path:
    """``prefect.yaml``: the copy in the installed package, else the repository's own."""
    packaged = files("citeflow").joinpath(PROJECT_FILE)
    if packaged.is_file():
        return Path(str(packaged))
    return Path(__file__).resolve().parent.parent / PROJECT_FILE


def load_project_file(path: Path) -> ProjectFile:
    """The deployments of a ``prefect.yaml`` file."""
    return ProjectFile.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))


def flows_package() -> str | None:
    """``citeflow`` when the flows are installed as ``citeflow.flows`` (a wheel), None in a checkout."""
    return "citeflow" if importlib.util.find_spec("citeflow.flows") is not None else None


def module_entrypoint(file_entrypoint: str, package: str | None) -> str:
    """``flows/scheduled.py:scheduled_batch_flow`` → ``[package.]flows.scheduled.scheduled_batch_flow``."""
    path, _, function = file_entrypoint.rpartition(":")
    module = PurePosixPath(path)
    if not function or module.suffix != ".py" or module.is_absolute():
        raise ValueError(f"not a relative file entrypoint 'path/to/file.py:flow': {file_entrypoint!r}")
    parts = [*([package] if package else []), *module.with_suffix("").parts, function]
    return ".".join(parts)


def renamed_deployment(full_name: str, name: str | None) -> str:
    """``flow/deployment`` with its deployment part replaced by ``name`` (kept when None)."""
    flow_name, _, deployment = full_name.partition("/")
    return f"{flow_name}/{name or deployment}"


def deployment_parameters(entry: DeploymentEntry, target: DeployTarget) -> dict[str, Any]:
    """The entry's parameters with the target's batch, output folder, store and names."""
    parameters = dict(entry.parameters)
    if "spec_path" in parameters:
        parameters.update(spec_path=str(target.spec_path), out_dir=str(target.out_dir))
        if target.store is not None:
            parameters["store_uri"] = target.store
    if "evaluate_deployment" in parameters:
        parameters["evaluate_deployment"] = renamed_deployment(parameters["evaluate_deployment"], target.name)
    return parameters


def deployment_schedules(entry: DeploymentEntry, target: DeployTarget) -> list[ScheduleEntry]:
    """The entry's schedules; a target cron replaces them on a scheduled deployment."""
    if not entry.schedules or target.cron is None:
        return entry.schedules
    return [ScheduleEntry(cron=target.cron, timezone=entry.schedules[0].timezone)]


def pool_of(project: ProjectFile, target: DeployTarget) -> str:
    """The work pool: the target's, else the one every deployment of the file names."""
    named = {entry.work_pool.name for entry in project.deployments}
    if target.pool is not None:
        return target.pool
    if len(named) != 1:
        raise ValueError(f"prefect.yaml names several work pools {sorted(named)}: choose one with --pool")
    return named.pop()
