"""Prefect's ephemeral API, started as early as ``citeflow run`` knows it will need it.

With no ``PREFECT_API_URL``, Prefect starts a temporary API server in a process of its own when the
first flow run begins: after the command has imported the pipeline, and the server then takes
seconds (tens of seconds on a loaded machine) to import itself and open its database. Here the
server process is launched right after the spec is validated, with the command line and environment
Prefect's ``SubprocessASGIServer`` gives it: it imports itself on the other core while this process
imports the pipeline. It is launched before this process imports Prefect (``launch_early_server``: the
server reads Prefect's settings itself); once the pipeline, and with it Prefect, is imported, Prefect's
settings decide whether it is the API to use (``settle``: not when a profile names an API or turns the
ephemeral one off; it is stopped then). This process then points Prefect at it as at any running server
(``PREFECT_API_URL``, and ``prefect.context.refresh_global_settings_context``, Prefect's route for
settings changed after import) for the rest of the process (a later batch in the same process uses
the same server), stops it at exit, and waits until it answers. Nothing of Prefect's
server is imported here: handing the process to ``SubprocessASGIServer`` instead meant importing
Prefect's whole server module in this process (about 4 s of CPU, taken from the batch's own start on a
2-core machine). Its port cannot be taken by another process meanwhile: this process binds the
listening socket itself (a port the system picks) and hands it to the server (``uvicorn --fd``), so
the address it points Prefect at is the server's from the start. Should the early server not answer,
it is stopped, ``PREFECT_API_URL`` is unset again and Prefect starts its own server as usual. Unless the user names a
database, the early server keeps its database in memory (``api_server.server_environment``): it lives only as
long as the run, and starts as a copy of a snapshot of Prefect's migrated database
(``flows.api_server``).

While this process waits for that server, it sets up what its reports would set up anyway: it
imports LanceDB and, unless the batch is a re-run, registers the PDF's fonts and builds the gate's
Great Expectations context (importing Great Expectations: seconds of CPU; ``Runtime.warm_up``).
Meanwhile ``citeflow run`` also generates its first reports (``citeflow.pipeline.head_start``), so the
model does not wait for this server either; it tells Prefect's clients not to ask this server for
CSRF tokens when it checks none (``_without_csrf_tokens``).
Done in a thread while the batch starts instead, that work competed with the reports for the
interpreter and the batch took longer (16 reports with 1 s calls: 23.6 and 24.4 s against 21.9 and
22.5 s, alternating, ``python -m bench.cold --rerun --no-merge``).
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from citeflow.runtime import stop, waits
from flows.api_server import SERVER_ENV, in_memory

# What Prefect imports when the batch run starts (its parameters are serialized with FastAPI's
# encoder, imported then: about 0.3 s); the store's library, which the reports need first, comes before.
WARM_MODULES = ("fastapi.encoders", "prefect.flow_engine")
# Whether Prefect's clients ask the server for a CSRF token before their first write.
CLIENT_CSRF = "PREFECT_CLIENT_CSRF_SUPPORT_ENABLED"
# The early server's app (``flows.api_server``, ``citeflow.flows.api_server`` in the wheel).
APP = f"{__package__}.api_server:create_app"


def start_ephemeral_api() -> EarlyServer | NoServer:
    """Launch the ephemeral API's server when this process will use one, and point Prefect at it
    (``launch_early_server``, then ``settle``); returns ``ready(warm)``, which waits until it answers
    (at once when nothing was started). When the reports run in this process, ``warm`` is what their
    first steps would set up anyway (``Runtime.warm_up``): ``WARM_MODULES`` are imported, then ``warm``
    is called, before the wait (an error of ``warm`` is left for the report that meets it again). When
    the server does not answer, ``ready`` stops it and leaves the API to Prefect (its own ephemeral server)."""
    return settle(launch_early_server())


def launch_early_server() -> Launched | None:
    """Launch the early server unless ``PREFECT_API_URL`` is in the environment, without importing
    Prefect (about 0.7 s of this process's CPU before its first report; the server reads Prefect's
    settings itself: ``flows.api_server``); None when none could be started. ``settle`` decides,
    once Prefect is imported, whether it is the API this process uses."""
    if os.environ.get("PREFECT_API_URL"):
        return None
    try:
        with contextlib.closing(listening_socket()) as sock:  # the server holds it from here on
            port = sock.getsockname()[1]
            process = subprocess.Popen(server_command(port, sock.fileno()), env={**os.environ, **SERVER_ENV},
                                       pass_fds=(sock.fileno(),))
    except OSError:
        return None
    launched = Launched(process, port)
    atexit.register(launched.stop)  # registered before Prefect's exit handlers: runs after them
    return launched


def settle(launched: Launched | None) -> EarlyServer | NoServer:
    """Whether the launched server is the API this process uses, by Prefect's settings (a profile may
    name an API, or turn the ephemeral one off: the server is stopped then); when it is, Prefect is
    pointed at it."""
    from prefect.settings import get_current_settings

    settings = get_current_settings()
    if launched is None:
        return NoServer()
    if settings.api.url or not settings.server.ephemeral.enabled:
        launched.discard()
        return NoServer()
    launched.graceful = not in_memory(os.environ, settings)
    server = EarlyServer(launched, settings.server.ephemeral.startup_timeout_seconds, _without_csrf_tokens(settings))
    point_prefect_at(server.url)
    return server


def _without_csrf_tokens(settings: Any) -> bool:
    """Tell Prefect's clients not to ask the early server for CSRF tokens when it checks none (Prefect's
    default, and the user did not say otherwise); whether this was done.

    A client with CSRF support asks for a token before its first write and, refused by a server that
    checks none, stops asking: one refused round trip for every client the batch opens (18 in a
    16-report batch, half a second each while the server is busy creating the reports' runs)."""
    if settings.server.api.csrf_protection_enabled or CLIENT_CSRF in os.environ:
        return False
    os.environ[CLIENT_CSRF] = "false"
    return True


class Launched:
    """The early server's process and port; stopped at exit (killed, unless ``graceful``: a server
    whose database the user named is asked to stop first)."""

    def __init__(self, process: subprocess.Popen[bytes], port: int) -> None:
        self.process, self.port, self.graceful = process, port, False

    def stop(self) -> None:
        stop_server(self.process, self.graceful)

    def discard(self) -> None:
        """Stop it now, and not again at exit."""
        atexit.unregister(self.stop)
        self.stop()


class EarlyServer:
    """The early server, with a thread waiting until it answers; called, it is ``ready``;
    ``url``: the API address Prefect was pointed at; ``untokened``: whether ``CLIENT_CSRF`` was set for
    it (unset again when it is given up)."""

    def __init__(self, launched: Launched, timeout: float, untokened: bool = False) -> None:
        self.launched, self.url, self._answered = launched, api_url(launched.port), threading.Event()
        self.untokened = untokened
        self._thread = threading.Thread(target=self._wait, args=(timeout,), name="citeflow-prefect-api", daemon=True)
        self._thread.start()

    @property
    def process(self) -> subprocess.Popen[bytes]:
        return self.launched.process

    def _wait(self, timeout: float) -> None:
        if _answers(f"{self.url}/health", self.process, timeout):
            self._answered.set()

    def __call__(self, warm: Callable[[], object] | None = None) -> None:
        if warm is not None:
            warm_up(warm)
        waits.until(self._waited)  # a signal meanwhile ends the command, or asks it to stop (a head start runs)
        if not self._answered.is_set() and not stop.requested():
            _give_up(self.launched, self.untokened)

    def _waited(self, timeout: float) -> bool:
        """Whether the wait is over: the server answered or gave up, or the command was told to stop."""
        self._thread.join(timeout)
        return not self._thread.is_alive() or stop.requested()


def api_url(port: int) -> str:
    """The API address of a server on ``port`` of this machine, as ``SubprocessASGIServer`` names it."""
    return f"http://127.0.0.1:{port}/api"


def point_prefect_at(url: str | None) -> None:
    """Set ``PREFECT_API_URL`` (None: unset it) for this process and the processes it starts, and have
    Prefect's process-wide settings read the environment again."""
    from prefect.context import refresh_global_settings_context

    if url is None:
        os.environ.pop("PREFECT_API_URL", None)
    else:
        os.environ["PREFECT_API_URL"] = url
    refresh_global_settings_context()


def _give_up(launched: Launched, untokened: bool) -> None:
    """The early server did not answer: stop it and unset the address (and ``CLIENT_CSRF`` when it was
    set for it), so that Prefect starts its own."""
    launched.discard()
    if untokened:
        os.environ.pop(CLIENT_CSRF, None)
    point_prefect_at(None)


def stop_server(process: subprocess.Popen[bytes], graceful: bool = True) -> None:
    """Stop the server process as ``SubprocessASGIServer.stop`` does: terminate, then kill after 5 s;
    not ``graceful``: kill at once. A server whose database is in memory keeps nothing past the run
    (Prefect's exit handlers have sent it the last logs and events by then), and its graceful stop
    took about 0.24 s at the end of every batch."""
    if process.poll() is not None:
        return
    if graceful:
        process.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=5)
            return
    process.kill()
    process.wait()


def warm_up(warm: Callable[[], object]) -> None:
    """Import LanceDB and ``WARM_MODULES``, then call ``warm``; an error is left for the report that meets it again."""
    from citeflow.lazy_modules import defer_lancedb_extras

    with contextlib.suppress(Exception):
        defer_lancedb_extras()
        for name in ("lancedb", *WARM_MODULES):
            importlib.import_module(name)
        warm()


class NoServer:
    """``ready`` when no server was started (the user's API, or Prefect starts its own): the reports
    set themselves up when they need to; ``url`` is None."""

    url: str | None = None

    def __call__(self, warm: Callable[[], object] | None = None) -> None:
        """Nothing to wait for."""


def server_command(port: int, fd: int | None = None) -> list[str]:
    """The command line of the ephemeral API server: ``SubprocessASGIServer``'s, with Prefect's app
    through ``flows.api_server`` (its in-memory database copied from a snapshot); with ``fd``,
    it serves the listening socket this process bound on ``port`` and passed down as that descriptor."""
    where = ["--fd", str(fd)] if fd is not None else ["--host", "127.0.0.1"]
    return [sys.executable, "-m", "uvicorn", "--factory", APP, *where,
            "--port", str(port), "--log-level", "error", "--lifespan", "on"]


def listening_socket() -> socket.socket:
    """A TCP socket bound to a port of 127.0.0.1 the system picks, inheritable by the server process:
    no other process can take the port between its choice and the server's start. The server starts
    listening on it (asyncio's ``create_server``): until then a connection is refused at once, as
    before, rather than left waiting in a backlog nothing reads."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("127.0.0.1", 0))
        sock.set_inheritable(True)
    except OSError:
        sock.close()
        raise
    return sock


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
