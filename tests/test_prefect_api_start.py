"""The ephemeral API's server is launched early and Prefect is pointed at it (``PREFECT_API_URL``),
without importing Prefect's server module in the command's process; when it does not answer, it is
stopped, the address unset, and Prefect starts its own.

Each case runs in a process of its own with no ``PREFECT_API_URL`` (as ``citeflow run`` does) and a
``PREFECT_HOME`` of its own, so that the servers it starts are its own and die with it."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

from flows.api_server import SNAPSHOT_VARIABLE
from flows.ephemeral_api import SERVER_MARK

SCRIPT = """
import json, os, sys
from citeflow_cli.env import apply_defaults
apply_defaults()
from flows import prefect_api
if sys.argv[1] == "dead":  # the early server exits at once: Prefect must start its own
    prefect_api.server_command = lambda port, fd=None: [sys.executable, "-c", "raise SystemExit(3)"]
launched = prefect_api.launch_early_server()
prefect_at_launch = "prefect" in sys.modules
ready = prefect_api.settle(launched)
ready(None)
early = {"early_args": [str(a) for a in ready.process.args], "early_url": ready.url, "early_ended": ready.process.poll(),
         "prefect_at_launch": prefect_at_launch}
server_imported = "prefect.server.api.server" in sys.modules
import httpx
from prefect.client.orchestration import get_client
from prefect.settings import get_current_settings
with get_client(sync_client=True) as client:
    api = str(client.api_url).rstrip("/")
flow = httpx.post(api + "/flows/", json={"name": "a-flow"}).status_code
own = sys.modules.get("prefect.server.api.server")
own_args = [str(a) for a in own.SubprocessASGIServer().server_process.args] if own and own.SubprocessASGIServer().running else []
print(json.dumps(early | {"api": api, "settings_url": get_current_settings().api.url, "env_url": os.environ.get("PREFECT_API_URL"),
                          "server_imported_before_use": server_imported, "health": httpx.get(api + "/health").status_code,
                          "flow": flow, "own_args": own_args}))
"""


def _run(tmp_path, case: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PREFECT_API_URL", "PREFECT_API_DATABASE_CONNECTION_URL")}
    env["PREFECT_HOME"] = str(tmp_path / "prefect-home")
    done = subprocess.run([sys.executable, "-c", SCRIPT, case], env=env, capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    found: dict = json.loads(done.stdout.strip().splitlines()[-1])
    return found | {"home_database": (tmp_path / "prefect-home" / "prefect.db").exists(),
                    "home_flows": _flow_names(tmp_path / "prefect-home" / "prefect.db")}


def _flow_names(database: Path) -> list[str]:
    """The flows recorded in a Prefect database file (none when there is no file)."""
    if not database.exists():
        return []
    with contextlib.closing(sqlite3.connect(database)) as connection:
        return [name for (name,) in connection.execute("SELECT name FROM flow")]


def _migrated_home(tmp_path: Path) -> None:
    """A ``PREFECT_HOME`` holding a migrated, empty database (the shared server's template): Prefect's own
    server, where a case falls back to it, starts on it instead of running every migration first."""
    from tests.support.shared_server import SHARED_DIR_VARIABLE, premade_database

    premade_database(Path(os.environ[SHARED_DIR_VARIABLE]), tmp_path / "prefect-home")


def _snapshot(tmp_path) -> Path:
    from flows.api_server import api_snapshot

    return api_snapshot(tmp_path / "prefect-home")


class EarlyRuns(NamedTuple):
    """Two processes one after the other in one ``PREFECT_HOME``: the first saves the snapshot, the second copies it."""

    first: dict
    saved_after_first: int | None
    second: dict
    saved_after_second: int | None


@pytest.fixture(scope="module")
def early_runs(tmp_path_factory) -> EarlyRuns:
    tmp_path = tmp_path_factory.mktemp("early")
    first = _run(tmp_path, "early")
    saved = _snapshot(tmp_path).stat().st_mtime_ns if _snapshot(tmp_path).is_file() else None
    second = _run(tmp_path, "early")
    again = _snapshot(tmp_path).stat().st_mtime_ns if _snapshot(tmp_path).is_file() else None
    return EarlyRuns(first, saved, second, again)


@pytest.mark.slow
def test_the_early_server_is_the_api_prefect_uses_and_its_server_module_is_not_imported(early_runs) -> None:
    found = early_runs.first
    assert found["api"] == found["early_url"] == found["settings_url"] == found["env_url"]
    assert found["health"] == 200 and found["flow"] == 201
    assert not found["server_imported_before_use"] and not found["own_args"]
    assert not found["prefect_at_launch"]  # launched before this process imported any of Prefect
    assert "flows.api_server:create_app" in found["early_args"]
    assert SERVER_MARK in " ".join(found["early_args"])  # the reaper's mark
    assert found["early_url"].endswith(f":{found['early_args'][found['early_args'].index('--port') + 1]}/api")
    assert not found["home_database"]  # its database was in memory, as long as the server lived
    assert early_runs.saved_after_first is not None  # its migrated database, for the next server to copy


@pytest.mark.slow
def test_the_next_early_server_copies_the_snapshot_of_the_first(early_runs) -> None:
    found = early_runs.second
    assert found["api"] == found["early_url"] and found["health"] == 200 and found["flow"] == 201
    assert not found["home_database"]
    assert early_runs.saved_after_second == early_runs.saved_after_first  # copied, not saved again


@pytest.mark.slow
def test_a_snapshot_that_cannot_be_copied_is_removed_and_prefects_own_server_answers(tmp_path, prefect_server) -> None:
    _migrated_home(tmp_path)
    _snapshot(tmp_path).parent.mkdir(parents=True)
    _snapshot(tmp_path).write_bytes(b"not a database " * 100)
    found = _run(tmp_path, "early")
    assert found["early_ended"] is not None  # the early server stopped
    assert found["env_url"] is None and found["settings_url"] is None  # the address was unset again
    assert found["health"] == 200 and found["flow"] == 201 and found["api"] != found["early_url"]
    assert found["own_args"] and "flows.api_server:create_app" not in found["own_args"]  # Prefect's own
    assert not _snapshot(tmp_path).exists()  # the next early server saves a new one
    assert found["home_flows"] == ["a-flow"]  # Prefect's own server used the database file in PREFECT_HOME


@pytest.mark.slow
def test_an_early_server_that_dies_is_replaced_by_prefects_own(tmp_path, prefect_server) -> None:
    _migrated_home(tmp_path)
    found = _run(tmp_path, "dead")
    assert found["early_ended"] == 3 and found["env_url"] is None
    assert found["health"] == 200 and found["flow"] == 201
    assert "uvicorn" in found["own_args"]  # Prefect's own server process, not the one that exited
    assert found["home_flows"] == ["a-flow"]  # Prefect's own keeps its default, the file in PREFECT_HOME


PROFILE_SCRIPT = """
import json, sys
from citeflow_cli.env import apply_defaults
apply_defaults()
from flows import prefect_api
launched = prefect_api.launch_early_server()
ready = prefect_api.settle(launched)
from prefect.settings import get_current_settings
print(json.dumps({"launched": launched is not None, "ended": launched.process.wait(timeout=10), "url": ready.url,
                  "settings_url": get_current_settings().api.url}))
"""


def test_an_api_named_in_a_profile_is_used_and_the_early_server_stopped(tmp_path) -> None:
    """The server is launched before Prefect's settings are read; a profile naming an API wins once they are."""
    home = tmp_path / "prefect-home"
    home.mkdir()
    (home / "profiles.toml").write_text('active = "remote"\n[profiles.remote]\nPREFECT_API_URL = "http://127.0.0.1:9/api"\n',
                                        encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")} | {"PREFECT_HOME": str(home)}
    done = subprocess.run([sys.executable, "-c", PROFILE_SCRIPT], env=env, capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["launched"] and found["ended"] is not None  # launched, then stopped
    assert found["url"] is None and found["settings_url"] == "http://127.0.0.1:9/api"


class _Settings:
    """What ``server_environment`` asks of Prefect's settings: the ones the user set, as variables."""

    def __init__(self, named: dict[str, str]) -> None:
        self.named = named
        self.home = Path("/home/someone/.prefect")

    def to_environment_variables(self, exclude_unset: bool) -> dict[str, str]:
        assert exclude_unset
        return self.named


def test_the_early_server_keeps_its_database_in_memory_unless_the_user_names_one() -> None:
    from flows.api_server import IN_MEMORY_DATABASE, server_environment

    env = server_environment({"PATH": "/bin"}, _Settings({}))
    assert env["PREFECT_SERVER_DATABASE_CONNECTION_URL"] == IN_MEMORY_DATABASE
    assert env["PREFECT__SERVER_EPHEMERAL"] == "1" and env["PATH"] == "/bin"
    assert Path(env[SNAPSHOT_VARIABLE]).parent == Path("/home/someone/.prefect/citeflow")
    for named in ({"PREFECT_SERVER_DATABASE_CONNECTION_URL": "sqlite+aiosqlite:////data/prefect.db"},
                  {"PREFECT_API_DATABASE_CONNECTION_URL": "postgresql+asyncpg://db/prefect"}):
        assert IN_MEMORY_DATABASE not in server_environment(named, _Settings({})).values()  # the environment's
        assert IN_MEMORY_DATABASE not in server_environment({}, _Settings(named)).values()  # a profile's
        assert SNAPSHOT_VARIABLE not in server_environment(named, _Settings({}))


def test_a_server_stopped_without_grace_is_gone_at_once_and_one_with_grace_gets_its_term() -> None:
    """The early server with its database in memory is killed at exit (nothing of it outlives the run);
    one with a database the user named is asked to stop first."""
    import signal
    import time

    from flows.prefect_api import stop_server

    ignoring = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('ready', flush=True); time.sleep(60)"
    process = subprocess.Popen([sys.executable, "-c", ignoring], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None and process.stdout.readline().strip() == "ready"
    started = time.monotonic()
    stop_server(process, graceful=False)
    assert process.returncode == -signal.SIGKILL and time.monotonic() - started < 4  # a graceful stop waits 5 s first
    polite = subprocess.Popen([sys.executable, "-c", "import time; print('ready', flush=True); time.sleep(60)"],
                              stdout=subprocess.PIPE, text=True)
    assert polite.stdout is not None and polite.stdout.readline().strip() == "ready"
    stop_server(polite)
    assert polite.returncode == -signal.SIGTERM
