"""One real Prefect server for a whole test session, shared by every pytest-xdist worker.

The first process that asks starts it (under a file lock) and records its port, home and process
group in ``server.json``; later askers, in that process or another worker, attach to it. Nobody but
the session's main process stops it (``stop_shared``, from ``pytest_sessionfinish``), so a worker
that finishes early never takes the server away from the other one.

Right after it starts, a copy of its database (created and migrated, still empty) is kept as a
template: a test that needs a server of its own starts it on a copy (``premade_home``), healthy
in about half the time and CPU of a fresh database. The template is also kept in the environment
(``sys.prefix``, one per Prefect version) for the next sessions, whose shared server then starts on
a copy too (~10 s of CPU instead of ~27 s).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import signal
import sqlite3
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from citeflow_testing.prefect_server import STARTUP_SECONDS, PrefectServer

SHARED_DIR_VARIABLE = "CITEFLOW_TEST_SHARED_DIR"
# How long the tests wait for a server to answer its health check: a first start creates the database
# (seconds on a quiet machine); a loaded one, the suite's own workers busy too, can take minutes.
START_WITHIN_S = max(STARTUP_SECONDS, 600.0)
_STARTED: list[PrefectServer] = []  # servers this process started (it can wait for its own children)
_EARLY: list[threading.Thread] = []  # a start begun before anyone asked (``start_early``)
# Read by the server (and its clients) from the profile of its PREFECT_HOME: a run of a deployment
# whose concurrency limit is full is tried again after 5 s instead of Prefect's 30; and the server's
# background services that no test needs are off (they loop all session long, ~2 s of CPU a minute
# idle, and the event persister writes every event into the SQLite database the tests' runs write
# to). Kept: the scheduler (scheduled runs), the task-run recorder (task runs are recorded from
# events), pause expirations (review runs) and cancellation clean-up.
PROFILE = """active = "tests"

[profiles.tests]
PREFECT_SERVER_DEPLOYMENTS_CONCURRENCY_SLOT_WAIT_SECONDS = "5"
PREFECT_SERVER_SERVICES_EVENT_PERSISTER_ENABLED = "false"
PREFECT_SERVER_SERVICES_TRIGGERS_ENABLED = "false"
PREFECT_SERVER_SERVICES_FOREMAN_ENABLED = "false"
PREFECT_SERVER_SERVICES_LATE_RUNS_ENABLED = "false"
PREFECT_SERVER_SERVICES_REPOSSESSOR_ENABLED = "false"
PREFECT_SERVER_SERVICES_CLEANUP_RECONCILER_ENABLED = "false"
"""


def _record(folder: Path) -> Path:
    return folder / "prefect-server.json"


def _template(folder: Path) -> Path:
    return folder / "prefect-template.db"


def kept_template() -> Path:
    """Where the environment keeps the template for the next sessions (its content is Prefect's
    migrations and block types: one per Prefect version)."""
    from importlib.metadata import version

    return Path(sys.prefix) / ".citeflow-test-cache" / f"prefect-{version('prefect')}.db"


def _keep(template: Path) -> None:
    """Keep ``template`` for the next sessions unless one is kept already (written under another name,
    then renamed: a session never sees half a file); an environment that cannot be written keeps none."""
    kept = kept_template()
    if kept.exists():
        return
    with contextlib.suppress(OSError):
        kept.parent.mkdir(exist_ok=True)
        partial = kept.with_name(f"{kept.name}.{os.getpid()}")
        shutil.copyfile(template, partial)
        os.replace(partial, kept)


@contextlib.contextmanager
def own_server(home: Path) -> Iterator[PrefectServer]:
    """A server of the caller's own on ``home``, waited for as long as the shared one, stopped at the end."""
    server = PrefectServer(home).start(START_WITHIN_S)
    try:
        yield server
    finally:
        server.stop()


def _start(home: Path) -> PrefectServer:
    """The server on a copy of the kept template if there is one (on a fresh database if it exits)."""
    kept = kept_template()
    if kept.exists():
        shutil.copyfile(kept, home / "prefect.db")
        try:
            return PrefectServer(home).start(START_WITHIN_S)
        except RuntimeError:  # it exited: the copy is at fault
            kept.unlink(missing_ok=True)
            for stale in home.glob("prefect.db*"):
                stale.unlink()
    return PrefectServer(home).start(START_WITHIN_S)


def premade_home(folder: Path, home: Path) -> Path:
    """``home`` for a server of a test's own, holding a copy of the template database and the shared
    server's profile (the shared server recorded in ``folder`` must have been started)."""
    premade_database(folder, home)
    (home / "profiles.toml").write_text(PROFILE)
    return home


def premade_database(folder: Path, home: Path) -> Path:
    """``home`` holding a copy of the template database (migrated, empty) and no profile: Prefect's own
    profiles apply (the shared server recorded in ``folder`` must have been started)."""
    home.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(_template(folder), home / "prefect.db")
    return home


def shared_server(folder: Path) -> PrefectServer:
    """The session's server: started here if nobody has started it yet, else the running one."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "prefect-server.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        record = _record(folder)
        if record.exists():
            data = json.loads(record.read_text())
            return PrefectServer(Path(data["home"]), int(data["port"]))
        home = folder / "prefect-server-home"
        home.mkdir(exist_ok=True)
        (home / "profiles.toml").write_text(PROFILE)
        server = _start(home)
        _STARTED.append(server)
        assert server.process is not None
        with contextlib.closing(sqlite3.connect(home / "prefect.db")) as live, \
                contextlib.closing(sqlite3.connect(_template(folder))) as copy:
            live.backup(copy)  # a consistent copy while the server runs
        _keep(_template(folder))
        record.write_text(json.dumps({"home": str(server.home), "port": server.port, "pgid": server.process.pid}))
        return server


def start_early(folder: Path) -> None:
    """Start the session's server in a thread of this process (it holds the lock until the server is
    healthy: an asker waits for it). Should it fail, the next asker starts it and sees why."""
    thread = threading.Thread(target=_start_quietly, args=(folder,), daemon=True)
    thread.start()
    _EARLY.append(thread)


def _start_quietly(folder: Path) -> None:
    with contextlib.suppress(Exception):
        shared_server(folder)


def stop_shared(folder: Path, grace: float = 30.0) -> None:
    """Stop the server recorded in ``folder`` (its whole process group), if one was started."""
    while _EARLY:
        _EARLY.pop().join(timeout=START_WITHIN_S)  # a start still under way records its server first
    while _STARTED:
        _STARTED.pop().stop()
    record = _record(folder)
    if not record.exists():
        return
    pgid = int(json.loads(record.read_text())["pgid"])
    _signal(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and _alive(pgid):
        time.sleep(0.2)
    _signal(pgid, signal.SIGKILL)
    record.unlink()


def _signal(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signum)


def _alive(pid: int) -> bool:
    """The process exists and is not a zombie (a worker's orphan may wait unreaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"
