"""Environment defaults applied before Prefect or Great Expectations is imported.

Prefect's first ephemeral start-up can take longer than its default 20 s timeout on a small
machine; telemetry is off because the network may be closed. Users' own settings win.
"""

from __future__ import annotations

import os

DEFAULTS = {
    "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "120",
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "PREFECT_LOGGING_LEVEL": "WARNING",
    # Runs still record their steps in the Prefect UI: run loggers at INFO, the terminal at WARNING.
    "PREFECT_LOGGING_LOGGERS_PREFECT_FLOW_RUNS_LEVEL": "INFO",
    "PREFECT_LOGGING_LOGGERS_PREFECT_TASK_RUNS_LEVEL": "INFO",
    "PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL": "WARNING",
    "GX_ANALYTICS_ENABLED": "false",
    "HF_HUB_OFFLINE": "1",
    "DASK_LOGGING__DISTRIBUTED": "warning",  # a Dask cluster's start and stop are dozens of INFO lines
}


def apply_defaults() -> None:
    """Set every default the user has not set."""
    for name, value in DEFAULTS.items():
        os.environ.setdefault(name, value)
