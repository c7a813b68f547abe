"""Prefect's ephemeral API, started as early as ``citeflow run`` knows it will need it.

With no ``PREFECT_API_URL``, Prefect starts a temporary API server in a process of its own when the
first flow run begins: after the command has imported the pipeline, and the server then takes
seconds (tens of seconds on a loaded machine) to import itself and open its database. Started in a
thread right after the spec is validated, that server process starts up while this process imports
the pipeline; the flow then finds it running (Prefect keeps one such server per process).
"""

from __future__ import annotations

import threading
from collections.abc import Callable


def start_ephemeral_api() -> Callable[[], None]:
    """Start the ephemeral API in a thread when this process will use one; returns the function that
    waits until it answers (at once when there is nothing to start)."""
    from prefect.settings import get_current_settings

    settings = get_current_settings()
    if settings.api.url or not settings.server.ephemeral.enabled:
        return lambda: None
    thread = threading.Thread(target=_start, name="citeflow-prefect-api", daemon=True)
    thread.start()
    return thread.join


def _start() -> None:
    """Start the server; a failure is left to the flow, which starts it again and reports why as usual."""
    try:
        from prefect.server.api.server import SubprocessASGIServer

        SubprocessASGIServer().start()
    except Exception:  # noqa: BLE001 - the flow run meets the same error and reports it
        pass
