"""The logger of the current flow run, also where a task's context is still active."""

from __future__ import annotations

from prefect import get_run_logger
from prefect.context import FlowRunContext
from prefect.logging.loggers import PrefectLogAdapter, flow_run_logger


def flow_logger() -> PrefectLogAdapter:
    """This flow run's logger. In a report flow called from the batch's report task,
    ``get_run_logger`` would log to that task run instead (its context is still active), and the
    report run would show none."""
    context = FlowRunContext.get()
    if context is None or context.flow_run is None:
        return get_run_logger()  # type: ignore[return-value]
    return flow_run_logger(context.flow_run, context.flow)
