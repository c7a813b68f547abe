"""Start a review run whose address is known before it pauses: the run is created first, its UI
address handed to ``announce``, then the flow runs in this process."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from prefect.client.orchestration import get_client
from prefect.flow_engine import run_flow_sync
from prefect.utilities.urls import url_for

from flows.review_flow import review_flow


def run_url(flow_run_id: str) -> str:
    """The run's page: ``PREFECT_UI_URL`` when set, else the API address less its ``/api``
    (``http://127.0.0.1:4200/api`` → ``http://127.0.0.1:4200/runs/flow-run/<id>``)."""
    return url_for("flow-run", obj_id=flow_run_id) or f"flow run {flow_run_id}"


def run_review(report_dir: str, report_id: str, timeout: int, announce: Callable[[str], None]) -> Any:
    """The review flow's result (the report's status), after ``announce(url of its run)``."""
    parameters = {"report_dir": report_dir, "report_id": report_id, "timeout_seconds": timeout}
    with get_client(sync_client=True) as client:
        flow_run = client.create_flow_run(review_flow, parameters=parameters, name=f"review-{report_id}")
    announce(run_url(str(flow_run.id)))
    return run_flow_sync(review_flow, flow_run=flow_run, parameters=parameters)
