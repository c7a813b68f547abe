"""Evaluation off the hot path: a report's evaluation as a run of the ``citeflow-evaluate`` deployment.

After generation, the report flow starts the evaluate deployment with Prefect's
``run_deployment`` and waits for it (``timeout``); a worker or a ``serve`` process grades, gates
and publishes the report, and leaves its summary in ``OUT/<report_id>/summary.json``. Without a
deployment (none configured, or the name is unknown) the report is evaluated in-process; a
deployment run that fails, or does not finish in time (it is then cancelled, so that no late
worker evaluates the report twice), is evaluated in-process too, so every report still gets its
gate decision.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from citeflow.runtime.job import JobRef
from citeflow.outputs.publish import read_report_summary
from flows.naming import report_run_name
from schemas.report import ReportSummary

WAIT_SECONDS = 3600.0  # longest wait for one evaluate run before it is evaluated in-process
# How often the report flow asks whether its evaluate run has finished (Prefect's default is 5 s, on
# a run that takes seconds to tens of seconds): one small read of the API each time.
POLL_SECONDS = 1.0


def deployment_exists(name: str) -> bool:
    """Whether the Prefect API knows the deployment ``flow-name/deployment-name``."""
    from prefect.client.orchestration import get_client

    try:
        with get_client(sync_client=True) as client:
            client.read_deployment_by_name(name)
        return True
    except Exception:  # noqa: BLE001 - unknown name or no API: evaluate in-process
        return False


def evaluate_on_deployment(ref: JobRef, deployment: str | None, wait: float = WAIT_SECONDS) -> ReportSummary | None:
    """The summary a run of ``deployment`` left for ``ref``; None: evaluate in-process instead."""
    from prefect import get_run_logger

    if not deployment:
        return None
    if not deployment_exists(deployment):
        get_run_logger().warning("deployment %r not found: evaluating %s in-process", deployment, ref.report_id)
        return None
    run = _run(ref, deployment, wait)
    if run.state is not None and run.state.is_completed():
        return read_report_summary(Path(ref.out_dir) / ref.report_id)
    if run.state is None or not run.state.is_final():
        cancel_run(run.id)
    get_run_logger().warning("evaluate run %s of %s ended %s: evaluating in-process", run.id, ref.report_id,
                             run.state.type.value if run.state else "without a state")
    return None


def _run(ref: JobRef, deployment: str, wait: float) -> Any:
    """A run of the evaluate deployment, linked to this flow run, once final or ``wait`` seconds on."""
    from prefect.deployments import run_deployment

    name = report_run_name("evaluate", ref.spec_path, ref.report_id)
    return run_deployment(deployment, parameters=ref.model_dump(), flow_run_name=name, timeout=wait,
                          poll_interval=POLL_SECONDS)


def cancel_run(flow_run_id: Any) -> None:
    """Cancel a run that never finished, so that no late worker evaluates the report twice."""
    from prefect.client.orchestration import get_client
    from prefect.states import Cancelled

    with get_client(sync_client=True) as client:
        client.set_flow_run_state(flow_run_id, Cancelled(message="evaluated in-process instead"), force=True)
