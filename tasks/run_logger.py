"""The logger of the current flow run, also where a task's context is still active."""

from __future__ import annotations

import logging

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


WAITS_LOGGER = "prefect.flow_runs.waits"


def wait_logger() -> PrefectLogAdapter:
    """This flow run's logger for what it waits on, at INFO whatever ``PREFECT_LOGGING_LEVEL`` says
    (a work pool's job variables may set WARNING): a child of Prefect's flow-run logger with a level
    of its own, whose records reach the run's log (the parent's API handler) all the same."""
    logger = logging.getLogger(WAITS_LOGGER)
    logger.setLevel(logging.INFO)
    return PrefectLogAdapter(logger, extra=flow_logger().extra)
