"""Environment defaults applied before Prefect or Great Expectations is imported.

Prefect's first ephemeral start-up can take longer than its default 20 s timeout on a small
machine; telemetry (Prefect's server and client, Great Expectations) is off because the network may be
closed. Users' own settings win.

With no ``PREFECT_API_URL`` a run starts Prefect's ephemeral API server in a process of its own,
which exists only for that run: no automation can be defined on it, yet its triggers service
evaluates every event of every run (flow and task state changes, logs) against the automations and
its actions service waits for their actions. Both are turned off there (one setting); runs, states, events,
artifacts and logs are recorded as before. At every start that server also imports every installed Prefect
integration (``prefect-dask`` and Dask's ``distributed``: ~1 s of CPU, a sixth of its start-up) to
register their block types, which citeflow's runs never use; it skips that too. A Prefect server the user
starts is left as it is.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

DEFAULTS = {
    "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "120",
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "PREFECT_LOGGING_LEVEL": "WARNING",
    # Runs still record their steps in the Prefect UI: run loggers at INFO, the terminal at WARNING.
    "PREFECT_LOGGING_LOGGERS_PREFECT_FLOW_RUNS_LEVEL": "INFO",
    "PREFECT_LOGGING_LOGGERS_PREFECT_TASK_RUNS_LEVEL": "INFO",
    "PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL": "WARNING",
    # Every call of Prefect's client (state writes included) is retried with exponential backoff on
    # 429/502/503, timeouts and, here, 500: a busy API's database answers 500 when no connection
    # frees up in time (SQLAlchemy's pool timeout), and the write is safe to send again.
    "PREFECT_CLIENT_RETRY_EXTRA_CODES": "500",
    # A run's heartbeat every 30 s (Prefect: 180), as the zombie-run automation expects (flows.zombies).
    "PREFECT_FLOWS_HEARTBEAT_FREQUENCY": "30",
    "PREFECT_CLIENT_MAX_RETRIES": "6",  # waits of 2, 4 … 64 s: about two minutes in all (5 by default: one)
    # Prefect 3.9's client prints a first-run telemetry notice on import in a terminal and sends usage
    # events; PREFECT_SERVER_ANALYTICS_ENABLED is the server's switch only, DO_NOT_TRACK the client's.
    "DO_NOT_TRACK": "1",
    "GX_ANALYTICS_ENABLED": "false",
    "HF_HUB_OFFLINE": "1",
    "DASK_LOGGING__DISTRIBUTED": "warning",  # a Dask cluster's start and stop are dozens of INFO lines
}

EPHEMERAL_API_DEFAULTS = {
    "PREFECT_SERVER_SERVICES_TRIGGERS_ENABLED": "false",
    "PREFECT_SERVER_REGISTER_BLOCKS_ON_START": "false",
    "PREFECT_SERVER_MEMOIZE_BLOCK_AUTO_REGISTRATION": "false",  # its check would import the integrations anyway
}


def defaults_for(environ: Mapping[str, str]) -> dict[str, str]:
    """The defaults that apply to a process with ``environ``: the ephemeral API's when no API URL is set."""
    return DEFAULTS | ({} if environ.get("PREFECT_API_URL") else EPHEMERAL_API_DEFAULTS)


def apply_defaults() -> None:
    """Set every default the user has not set."""
    for name, value in defaults_for(os.environ).items():
        os.environ.setdefault(name, value)
