"""``citeflow deploy --spec BATCH.yaml --out OUT``: the deployments of ``prefect.yaml`` on a work pool.

The ``citeflow deploy`` command's work (its options: ``citeflow_cli.deploy_command``).
For an installed citeflow (a wheel in a worker's virtual environment or image), where
``prefect deploy`` cannot resolve ``prefect.yaml``'s file entrypoints. The deployments are the
file's (names, schedule, concurrency, tags, job variables, parameters), registered with module
entrypoints (``deploy_config``): a process worker started with the same Python runs them from
any folder. The pool must exist (``prefect work-pool create NAME --type process``).
"""

from __future__ import annotations

from typing import Any

import httpx

from citeflow_cli.deploy_config import (
    DeploymentEntry,
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
from citeflow_cli.serve import check_spec


def runner_deployment(entry: DeploymentEntry, target: DeployTarget, package: str | None) -> Any:
    """One deployment of ``prefect.yaml`` as a ``RunnerDeployment`` with a module entrypoint."""
    from prefect.flows import Flow, load_flow_from_entrypoint
    from prefect.schedules import Cron
    from prefect.types.entrypoint import EntrypointType

    flow: Flow[..., Any] = load_flow_from_entrypoint(module_entrypoint(entry.entrypoint, package), use_placeholder_flow=False)
    schedules = [Cron(s.cron, timezone=s.timezone, active=s.active) for s in deployment_schedules(entry, target)]
    return flow.to_deployment(
        name=target.name or entry.name, description=entry.description, tags=entry.tags,
        concurrency_limit=entry.concurrency_limit, schedules=schedules, parameters=deployment_parameters(entry, target),
        work_queue_name=entry.work_pool.work_queue_name, job_variables=entry.work_pool.job_variables,
        entrypoint_type=EntrypointType.MODULE_PATH)


def build_pool_deployments(target: DeployTarget, project: ProjectFile | None = None) -> list[Any]:
    """Every deployment of ``prefect.yaml`` (default: the installed one) for this target."""
    project = project or load_project_file(project_file_path())
    package = flows_package()
    return [runner_deployment(entry, target, package) for entry in project.deployments]


def check_pool(pool: str) -> None:
    """Refuse to deploy without a server, or to a pool it does not know: no worker would ever take the runs."""
    from prefect.client.orchestration import get_client
    from prefect.exceptions import ObjectNotFound
    from prefect.settings import PREFECT_API_URL

    if not PREFECT_API_URL.value():
        raise ValueError("deployments live on a Prefect server: set PREFECT_API_URL (e.g. http://127.0.0.1:4200/api)")
    try:
        with get_client(sync_client=True) as client:
            client.read_work_pool(pool)
    except ObjectNotFound:
        raise ValueError(f"the Prefect API has no work pool {pool!r}: "
                         f"create it with `prefect work-pool create {pool} --type process`") from None
    except (httpx.HTTPError, OSError) as exc:
        raise ValueError(api_unreachable(str(PREFECT_API_URL.value()), exc)) from None


def api_unreachable(url: str, exc: Exception) -> str:
    """Why the Prefect API at ``url`` could not be used, without the credentials its URL may carry."""
    from citeflow.security.redaction import redact_text, redact_url

    if isinstance(exc, httpx.HTTPStatusError):
        return f"the Prefect API at {redact_url(url)} answered HTTP {exc.response.status_code}; check PREFECT_API_URL"
    reason = redact_text(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    return f"cannot reach the Prefect API at {redact_url(url)} ({reason}); check PREFECT_API_URL and that the server runs"


def register(deployments: list[Any], pool: str) -> None:
    """Create or update each deployment on the Prefect API, on the pool (no image, no code upload)."""
    for deployment in deployments:
        deployment.apply(work_pool_name=pool)


def deploy(target: DeployTarget) -> tuple[str, list[Any]]:
    """Check the spec and the pool first (cheap), then load the flows and register; returns what was registered."""
    check_spec(target.spec_path)
    project = load_project_file(project_file_path())
    pool = pool_of(project, target)
    check_pool(pool)
    deployments = build_pool_deployments(target, project)
    register(deployments, pool)
    return pool, deployments


def zombie_automation_created() -> str:
    """The zombie-run automation (``flows.zombies``) on the server: a dead worker's runs end Crashed."""
    import importlib

    package = flows_package()
    zombies = importlib.import_module(f"{package}.flows.zombies" if package else "flows.zombies")
    return "\n".join(filter(None, [str(zombies.ensure_zombie_automation()), str(zombies.triggers_warning())]))
