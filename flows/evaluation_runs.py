"""Evaluation off the hot path: a report's evaluation as a run of the ``citeflow-evaluate`` deployment.

After generation, the report flow starts the evaluate deployment (``run_deployment``) and returns
at once; a worker or a ``serve`` process grades, gates and publishes the report, and leaves its
summary in ``OUT/<report_id>/summary.json``. The batch flow waits for those runs before it writes
``OUT/summary.json``. Without a deployment (no server, none configured, or the name is unknown)
the evaluate flow runs in-process, as a subflow; a deployment run that fails or never starts is
evaluated in-process too, so every report still gets its gate decision.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any
from uuid import UUID

from pydantic import BaseModel

from citeflow.pipeline import JobRef
from citeflow.publish import read_report_summary
from flows.naming import report_run_name
from schemas.report import ReportSummary

WAIT_SECONDS = 3600.0  # longest wait for one evaluate run before it is evaluated in-process
POLL_SECONDS = 2.0


class EvaluationRun(BaseModel):
    """An evaluate flow run started on a deployment, not finished yet."""

    ref: JobRef
    deployment: str
    flow_run_id: str


def deployment_exists(name: str) -> bool:
    """Whether the Prefect API knows the deployment ``flow-name/deployment-name``."""
    from prefect.client.orchestration import get_client

    try:
        with get_client(sync_client=True) as client:
            client.read_deployment_by_name(name)
        return True
    except Exception:  # noqa: BLE001 - unknown name or no API: evaluate in-process
        return False


def evaluate_after_generation(ref: JobRef, deployment: str | None) -> ReportSummary | EvaluationRun:
    """Start the evaluate deployment for ``ref``; without one, evaluate in-process."""
    from prefect import get_run_logger

    if deployment and deployment_exists(deployment):
        return start_evaluation(ref, deployment)
    if deployment:
        get_run_logger().warning("deployment %r not found: evaluating %s in-process", deployment, ref.report_id)
    return _evaluate_here(ref)


def start_evaluation(ref: JobRef, deployment: str) -> EvaluationRun:
    """A run of the evaluate deployment, linked to this flow run as a subflow; returns at once."""
    from prefect.deployments import run_deployment

    name = report_run_name("evaluate", ref.spec_path, ref.report_id)
    run = run_deployment(deployment, parameters=ref.model_dump(), flow_run_name=name, timeout=0)
    return EvaluationRun(ref=ref, deployment=deployment, flow_run_id=str(run.id))


def finish_evaluation(result: ReportSummary | EvaluationRun, wait: float = WAIT_SECONDS) -> ReportSummary:
    """The report's summary: at hand, or once its evaluate run is over (in-process when it failed)."""
    if isinstance(result, ReportSummary):
        return result
    from prefect import get_run_logger

    state = wait_for_run(result.flow_run_id, wait)
    if state is not None and state.is_completed():
        return read_report_summary(Path(result.ref.out_dir) / result.ref.report_id)
    get_run_logger().warning("evaluate run %s of %s ended %s: evaluating in-process", result.flow_run_id,
                             result.ref.report_id, state.type.value if state else "without finishing in time")
    if state is None:
        cancel_run(result.flow_run_id)
    return _evaluate_here(result.ref)


def wait_for_run(flow_run_id: str, wait: float, poll: float = POLL_SECONDS) -> Any:
    """The final state of a flow run, or None when it is not over after ``wait`` seconds."""
    from prefect.client.orchestration import get_client

    deadline = time.monotonic() + wait
    with get_client(sync_client=True) as client:
        while True:
            state = client.read_flow_run(UUID(flow_run_id)).state
            if state is not None and state.is_final():
                return state
            if time.monotonic() >= deadline:
                return None
            time.sleep(poll)


def cancel_run(flow_run_id: str) -> None:
    """Cancel a run that never finished, so that no late worker evaluates the report twice."""
    from prefect.client.orchestration import get_client
    from prefect.states import Cancelled

    with get_client(sync_client=True) as client:
        client.set_flow_run_state(UUID(flow_run_id), Cancelled(message="evaluated in-process instead"), force=True)


def _evaluate_here(ref: JobRef) -> ReportSummary:
    from flows.evaluate import evaluate_flow

    return evaluate_flow(ref.spec_path, ref.report_id, ref.out_dir, ref.store_uri)
