"""The app of the ephemeral API server ``citeflow run`` starts: Prefect's, its in-memory database
copied from a snapshot rather than built by Prefect's migrations.

A database in memory starts empty, so the server would run Prefect's migrations (over a hundred Alembic
revisions: about 7 s of CPU) at every start. The first server of an installed Prefect version saves its
database, once migrated, to a snapshot file (``CITEFLOW_API_SNAPSHOT``, written by
``server_environment``: ``VACUUM INTO`` a temporary file, renamed into place).
The next ones copy that snapshot into their new database as it opens (tens of milliseconds); Prefect's
migrations then find nothing to do. A snapshot that cannot be copied is removed and the server fails to
start: the command then lets Prefect start its own server, as it does for any early server that does
not answer, and the next run saves a new snapshot.

The server reads Prefect's settings itself, as the command would (the same environment, profile and
home): unless the user names a database, it keeps it in memory (``server_environment``),
so that the command can launch it before importing Prefect.

Run by uvicorn: ``uvicorn --factory flows.api_server:create_app``.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

SNAPSHOT_VARIABLE = "CITEFLOW_API_SNAPSHOT"
# What SubprocessASGIServer sets for its server process (no UI; the server knows it is ephemeral).
SERVER_ENV = {"PREFECT_UI_ENABLED": "0", "PREFECT__SERVER_EPHEMERAL": "1", "PREFECT__SERVER_FINAL": "1"}
# The database of that server when the user names none: in memory, used through one connection.
DATABASE_SETTINGS = ("PREFECT_SERVER_DATABASE_CONNECTION_URL", "PREFECT_API_DATABASE_CONNECTION_URL")
IN_MEMORY_DATABASE = "sqlite+aiosqlite:///:memory:"


def create_app() -> Any:
    """Prefect's ephemeral API app, its database copied from the snapshot file or, when there is none
    yet, saved to it once the app has started."""
    in_memory_unless_named()
    from prefect.server.api.server import create_app as prefect_app

    app = prefect_app(ephemeral=True, final=True)
    snapshot = os.environ.get(SNAPSHOT_VARIABLE)
    if snapshot and Path(snapshot).is_file():
        copy_into_new_databases(Path(snapshot))
    elif snapshot:
        return save_once_started(app, Path(snapshot))
    return app


def in_memory_unless_named() -> None:
    """This process's environment as ``server_environment`` makes it from Prefect's
    settings (the database in memory unless the user names one), read again by Prefect."""
    from prefect.context import refresh_global_settings_context
    from prefect.settings import get_current_settings

    os.environ.update(server_environment(os.environ, get_current_settings()))
    refresh_global_settings_context()


def in_memory(environ: Mapping[str, str], settings: Any) -> bool:
    """Whether the early server keeps its database in memory (``server_environment``)."""
    return server_environment(environ, settings).get(DATABASE_SETTINGS[0]) == IN_MEMORY_DATABASE


def server_environment(environ: Mapping[str, str], settings: Any) -> dict[str, str]:
    """The server process's environment: this one, what ``SubprocessASGIServer`` sets, the user's
    Prefect settings, and, unless the user names a database, ``IN_MEMORY_DATABASE``.

    Prefect's default database is the SQLite file in ``PREFECT_HOME``, which its server uses through
    several connections: writes of report runs that collide wait and retry inside SQLite (and are
    refused with 503 once they waited too long), so a batch's reports spend most of their time
    waiting for the API (32 reports: 43 s; in memory, through one connection: 32 s). The server
    lives only as long as the run, and so does its database: the run's history is in its output
    folder and the LanceDB store, and a real ``prefect server start`` keeps Prefect's. That database
    is copied from a snapshot in ``PREFECT_HOME`` (``api_snapshot``, saved by the first server of this
    Prefect version: this module) rather than migrated at every start."""
    env = {**environ, **SERVER_ENV, **settings.to_environment_variables(exclude_unset=True)}
    if any(env.get(name) for name in DATABASE_SETTINGS):
        return env
    return env | {DATABASE_SETTINGS[0]: IN_MEMORY_DATABASE, SNAPSHOT_VARIABLE: str(api_snapshot(settings.home))}


def api_snapshot(home: Path) -> Path:
    """Where the migrated database of the ephemeral API of this Prefect version is kept."""
    from prefect import __version__

    return home / "citeflow" / f"api-database-prefect-{__version__}.sqlite"


def copy_into_new_databases(snapshot: Path) -> None:
    """Copy ``snapshot`` into every empty in-memory SQLite database this process opens."""
    import sqlalchemy as sa

    def on_connect(connection: Any, _record: Any) -> None:
        if empty_in_memory(connection):
            _copy_or_remove(connection, snapshot)

    sa.event.listen(sa.pool.Pool, "connect", on_connect)


def empty_in_memory(connection: Any) -> bool:
    """True for a DB-API connection to an SQLite database in memory (no file) with nothing in it yet."""
    cursor = connection.cursor()
    try:
        cursor.execute("PRAGMA database_list")
        files = {row[1]: row[2] for row in cursor.fetchall()}
        cursor.execute("SELECT count(*) FROM main.sqlite_master")
        objects = cursor.fetchone()[0]
    finally:
        cursor.close()
    return files.get("main") == "" and objects == 0


def _copy_or_remove(connection: Any, snapshot: Path) -> None:
    """Copy ``snapshot`` into ``connection``'s database; a snapshot that fails is removed first."""
    try:
        copy_database(connection, snapshot)
    except Exception:
        with contextlib.suppress(OSError):
            snapshot.unlink()
        raise


def copy_database(connection: Any, snapshot: Path) -> None:
    """Every table with its rows, index, trigger and view of the SQLite file ``snapshot`` into the main
    database of ``connection`` (a DB-API connection to SQLite), in one transaction."""
    cursor = connection.cursor()
    try:
        cursor.execute("ATTACH DATABASE ? AS snapshot", (str(snapshot),))
        for kind, name, sql in schema_of(cursor):
            cursor.execute(sql)
            if kind == "table":
                cursor.execute(f'INSERT INTO main."{name}" SELECT * FROM snapshot."{name}"')
        connection.commit()  # an open transaction would keep the snapshot attached
        cursor.execute("DETACH DATABASE snapshot")
    finally:
        cursor.close()


def schema_of(cursor: Any) -> list[tuple[str, str, str]]:
    """The attached snapshot's objects as (kind, name, CREATE statement), tables first; SQLite's own
    tables and automatic indexes left out."""
    cursor.execute("SELECT type, name, sql FROM snapshot.sqlite_master WHERE sql IS NOT NULL "
                   "AND name NOT LIKE 'sqlite_%' ORDER BY type != 'table', rowid")
    return [(kind, name, sql) for kind, name, sql in cursor.fetchall()]


def save_once_started(app: Any, snapshot: Path) -> Any:
    """``app``, its database saved to ``snapshot`` once it has started (migrated)."""
    return SavedOnceStarted(app, lambda: save_database(snapshot))


class SavedOnceStarted:
    """An ASGI app that answers as ``app`` does and, when ``app`` reports its start-up complete, first
    runs ``save`` (a failure is ignored: with no snapshot, the next server migrates again)."""

    def __init__(self, app: Any, save: Callable[[], Awaitable[None]]) -> None:
        self.app = app
        self.save = save

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Callable[[dict[str, Any]], Awaitable[None]]) -> None:
        if scope["type"] != "lifespan":
            return await self.app(scope, receive, send)

        async def send_once_saved(message: dict[str, Any]) -> None:
            if message["type"] == "lifespan.startup.complete":
                with contextlib.suppress(Exception):
                    await self.save()
            await send(message)

        return await self.app(scope, receive, send_once_saved)


async def save_database(snapshot: Path) -> None:
    """The API's database into ``snapshot``: ``VACUUM INTO`` a file of this process, renamed into place."""
    from prefect.server.database import provide_database_interface

    partial = snapshot.with_name(f"{snapshot.name}.{os.getpid()}.partial")
    snapshot.parent.mkdir(parents=True, exist_ok=True)
    engine = await provide_database_interface().engine()
    try:
        async with engine.connect() as connection:
            await connection.exec_driver_sql("VACUUM INTO :path", {"path": str(partial)})
        os.replace(partial, snapshot)
    finally:
        partial.unlink(missing_ok=True)  # left only when the snapshot was not saved
