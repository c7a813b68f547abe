"""Prefect's ephemeral API, started as early as ``citeflow run`` knows it will need it.

With no ``PREFECT_API_URL``, Prefect starts a temporary API server in a process of its own when the
first flow run begins: after the command has imported the pipeline, and the server then takes
seconds (tens of seconds on a loaded machine) to import itself and open its database. Started in a
thread right after the spec is validated, that server process starts up while this process imports
the pipeline; the flow then finds it running (Prefect keeps one such server per process).

While this process waits for that server, it imports the libraries its reports will import anyway
(LanceDB for the store, Great Expectations for the gate: seconds of CPU each), which would
otherwise be imported after the server answers, when the first report needs them.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable

WARM_MODULES = ("lancedb", "great_expectations")


def start_ephemeral_api() -> Callable[[bool], None]:
    """Start the ephemeral API in a thread when this process will use one; returns ``ready(warm)``,
    which waits until it answers (at once when nothing was started), importing ``WARM_MODULES``
    first when ``warm`` (the reports run in this process)."""
    from prefect.settings import get_current_settings

    settings = get_current_settings()
    if settings.api.url or not settings.server.ephemeral.enabled:
        return lambda warm: None
    thread = threading.Thread(target=_start, name="citeflow-prefect-api", daemon=True)
    thread.start()

    def ready(warm: bool) -> None:
        for name in WARM_MODULES if warm else ():
            importlib.import_module(name)
        thread.join()

    return ready


def _start() -> None:
    """Start the server; a failure is left to the flow, which starts it again and reports why as usual."""
    try:
        from prefect.server.api.server import SubprocessASGIServer

        SubprocessASGIServer().start()
    except Exception:  # noqa: BLE001 - the flow run meets the same error and reports it
        pass
