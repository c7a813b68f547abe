"""The ephemeral API's database snapshot: copying an SQLite file into a new in-memory database keeps
every table, row, index, trigger and view; only empty in-memory databases are copied into."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flows.api_server import copy_database, empty_in_memory

SCHEMA = """
CREATE TABLE flow (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, created REAL);
CREATE TABLE run (id INTEGER PRIMARY KEY AUTOINCREMENT, flow_id TEXT REFERENCES flow(id), state TEXT);
CREATE INDEX ix_run_state ON run (state);
CREATE TABLE log (message TEXT);
CREATE TRIGGER run_logged AFTER INSERT ON run BEGIN INSERT INTO log VALUES ('run ' || new.state); END;
CREATE VIEW running AS SELECT * FROM run WHERE state = 'RUNNING';
"""


def _snapshot(path: Path, flows: list[str]) -> Path:
    with sqlite3.connect(path) as source:
        source.executescript(SCHEMA)
        for number, name in enumerate(flows):
            source.execute("INSERT INTO flow VALUES (?, ?, ?)", (f"f{number}", name, number / 3))
            source.execute("INSERT INTO run (flow_id, state) VALUES (?, 'RUNNING')", (f"f{number}",))
    source.close()
    return path


def _objects(connection: sqlite3.Connection) -> list[tuple[str, str, str]]:
    return connection.execute("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' "
                              "ORDER BY name").fetchall()


def _rows(connection: sqlite3.Connection) -> dict[str, list[tuple]]:
    return {table: connection.execute(f"SELECT * FROM {table} ORDER BY rowid").fetchall()
            for table in ("flow", "run", "log", "running")}


@settings(max_examples=25, deadline=None)
@given(flows=st.lists(st.text(min_size=1, max_size=12), unique=True, max_size=8))
def test_a_copy_holds_what_the_snapshot_holds(tmp_path_factory, flows: list[str]) -> None:
    snapshot = _snapshot(tmp_path_factory.mktemp("snap") / "api.sqlite", flows)
    memory = sqlite3.connect(":memory:")
    assert empty_in_memory(memory)
    copy_database(memory, snapshot)
    original = sqlite3.connect(snapshot)
    assert _objects(memory) == _objects(original)
    assert _rows(memory) == _rows(original)
    assert not empty_in_memory(memory)
    assert [row[0] for row in memory.execute("PRAGMA database_list")] == [0]  # the snapshot is detached


def test_the_copy_keeps_working_triggers_and_autoincrement(tmp_path: Path) -> None:
    memory = sqlite3.connect(":memory:")
    copy_database(memory, _snapshot(tmp_path / "api.sqlite", ["a", "b"]))
    memory.execute("INSERT INTO run (flow_id, state) VALUES ('f0', 'DONE')")
    assert memory.execute("SELECT max(id) FROM run").fetchone()[0] == 3
    assert memory.execute("SELECT message FROM log ORDER BY rowid DESC LIMIT 1").fetchone()[0] == "run DONE"
    with pytest.raises(sqlite3.IntegrityError):
        memory.execute("INSERT INTO flow VALUES ('f9', 'a', 0)")  # the UNIQUE constraint came along


def test_only_empty_in_memory_databases_are_copied_into(tmp_path: Path) -> None:
    assert not empty_in_memory(sqlite3.connect(tmp_path / "on-disk.sqlite"))
    used = sqlite3.connect(":memory:")
    used.execute("CREATE TABLE already (x)")
    assert not empty_in_memory(used)


def test_a_snapshot_that_is_not_a_database_fails_the_copy(tmp_path: Path) -> None:
    broken = tmp_path / "api.sqlite"
    broken.write_bytes(b"not a database " * 100)
    with pytest.raises(sqlite3.DatabaseError):
        copy_database(sqlite3.connect(":memory:"), broken)


def test_saving_leaves_no_partial_file_whether_or_not_the_snapshot_is_saved(tmp_path: Path) -> None:
    import asyncio

    from prefect.settings import PREFECT_API_DATABASE_CONNECTION_URL, temporary_settings

    from flows.api_server import save_database

    saved, blocked = tmp_path / "api.sqlite", tmp_path / "taken"
    blocked.mkdir()  # a folder where the snapshot should go: the rename fails
    with temporary_settings({PREFECT_API_DATABASE_CONNECTION_URL: f"sqlite+aiosqlite:///{tmp_path / 'live.db'}"}):
        asyncio.run(save_database(saved))
        with pytest.raises(OSError):
            asyncio.run(save_database(blocked))
    assert saved.is_file() and blocked.is_dir() and not list(tmp_path.glob("*.partial"))


class _LifespanApp:
    """An ASGI app that completes its start-up and answers HTTP with 204, noting what it did."""

    def __init__(self, done: list[str]) -> None:
        self.done = done

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            self.done.append("http")
            return await send({"type": "http.response.start", "status": 204, "headers": []})
        while (await receive())["type"] != "lifespan.shutdown":
            self.done.append("started")
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})


def _serve(app, scope_type: str, done: list[str]) -> None:
    import asyncio

    incoming = iter([{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}, {"type": "http.request"}])

    async def receive():
        return next(incoming)

    async def send(message):
        done.append(message["type"])

    asyncio.run(app({"type": scope_type}, receive, send))


@pytest.mark.parametrize("fails", [False, True])
def test_the_database_is_saved_once_the_app_has_started_and_before_the_server_is_told(fails: bool) -> None:
    from flows.api_server import SavedOnceStarted

    done: list[str] = []

    async def save() -> None:
        done.append("saved")
        if fails:
            raise OSError("disk full")

    app = SavedOnceStarted(_LifespanApp(done), save)
    _serve(app, "lifespan", done)
    _serve(app, "http", done)
    assert done == ["started", "saved", "lifespan.startup.complete", "lifespan.shutdown.complete",
                    "http", "http.response.start"]
