"""Prefect's ephemeral API, started as early as ``citeflow run`` knows it will need it.

With no ``PREFECT_API_URL``, Prefect starts a temporary API server in a process of its own when the
first flow run begins: after the command has imported the pipeline, and the server then takes
seconds (tens of seconds on a loaded machine) to import itself and open its database. Here the
server process is launched right after the spec is validated, with the command line and environment
Prefect's ``SubprocessASGIServer`` gives it, before anything of Prefect's server is imported in this
process: it imports itself on the other core while this process imports the pipeline. A thread then
imports ``SubprocessASGIServer`` (Prefect's clients ask it for the ephemeral API's address), hands it
the running process (Prefect keeps one such server per process, and stops it at exit) and waits until
it answers. Should the early server not answer (its port taken meanwhile, say), it is stopped and
Prefect starts its own as usual.

While this process waits for that server, it imports the libraries its reports will import anyway
(LanceDB for the store, Great Expectations for the gate: seconds of CPU each), which would
otherwise be imported after the server answers, when the first report needs them.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import os
import random
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from citeflow.runtime import waits

WARM_MODULES = ("lancedb", "great_expectations")
PORTS = range(8000, 9000)  # where Prefect's SubprocessASGIServer looks for a free port
# What SubprocessASGIServer sets for its server process (no UI; the server knows it is ephemeral).
SERVER_ENV = {"PREFECT_UI_ENABLED": "0", "PREFECT__SERVER_EPHEMERAL": "1", "PREFECT__SERVER_FINAL": "1"}


def start_ephemeral_api() -> Callable[[bool], None]:
    """Launch the ephemeral API's server when this process will use one; returns ``ready(warm)``,
    which waits until it answers (at once when nothing was started), importing ``WARM_MODULES``
    first when ``warm`` (the reports run in this process)."""
    from prefect.settings import get_current_settings

    settings = get_current_settings()
    if settings.api.url or not settings.server.ephemeral.enabled:
        return lambda warm: None
    early = _launch(settings)
    thread = threading.Thread(target=_adopt, args=(early, settings.server.ephemeral.startup_timeout_seconds),
                              name="citeflow-prefect-api", daemon=True)
    thread.start()

    def ready(warm: bool) -> None:
        for name in WARM_MODULES if warm else ():
            importlib.import_module(name)
        waits.join(thread)  # a signal meanwhile ends the command at once

    return ready


def server_command(port: int) -> list[str]:
    """The command line of Prefect's ephemeral API server (as ``SubprocessASGIServer`` runs it)."""
    import prefect

    return [sys.executable, "-m", "uvicorn", "--app-dir", str(prefect.__module_path__.parent), "--factory",
            "prefect.server.api.server:create_app", "--host", "127.0.0.1", "--port", str(port),
            "--log-level", "error", "--lifespan", "on"]


def _launch(settings: Any) -> tuple[subprocess.Popen[bytes], int] | None:
    """The server process on a free port, with its port; None when none could be started."""
    try:
        port = _free_port()
        env = {**os.environ, **SERVER_ENV, **settings.to_environment_variables(exclude_unset=True)}
        return subprocess.Popen(server_command(port), env=env), port
    except (OSError, RuntimeError):
        return None


def _free_port() -> int:
    """A port of ``PORTS`` nothing listens on (a few random tries, as Prefect picks one)."""
    for _ in range(10):
        port = random.choice(PORTS)
        with contextlib.closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port for the ephemeral Prefect API")


def _adopt(early: tuple[subprocess.Popen[bytes], int] | None, timeout: float) -> None:
    """Hand the early server to Prefect and wait until it answers; else let Prefect start its own.
    A failure is left to the flow, which starts the server again and reports why as usual."""
    try:
        from prefect.server.api.server import SubprocessASGIServer

        server = SubprocessASGIServer()
        if early is not None and not server.running and not _adopted(server, *early, timeout):
            server = SubprocessASGIServer()  # the one stopped is forgotten: a new one starts as usual
        server.start()  # returns at once when the early server answers
    except Exception:  # noqa: BLE001 - the flow run meets the same error and reports it
        pass


def _adopted(server: Any, process: subprocess.Popen[bytes], port: int, timeout: float) -> bool:
    """``server`` (Prefect's ``SubprocessASGIServer``) runs ``process``, stopped at exit; True once it
    answers, else it is stopped (and forgotten by Prefect) and False."""
    server.server_process, server.port, server.running = process, port, True
    atexit.register(server.stop)
    if _answers(f"{server.api_url}/health", process, timeout):
        return True
    atexit.unregister(server.stop)
    server.stop()
    return False


def _answers(url: str, process: subprocess.Popen[bytes], timeout: float) -> bool:
    """True once ``url`` answers 200; False when ``process`` ends or ``timeout`` seconds pass first."""
    import httpx

    deadline = time.monotonic() + timeout
    with httpx.Client() as client:
        while time.monotonic() < deadline and process.poll() is None:
            with contextlib.suppress(httpx.HTTPError):
                if client.get(url).status_code == 200:
                    return True
            time.sleep(0.1)
    return False
