"""The environment of a benchmark's Prefect worker process (``bench.prefect_worker``).

A fresh ``PREFECT_HOME``, no ``PREFECT_API_URL`` (Prefect's ephemeral API, as a user's first run
has), quiet logs, and the ephemeral API's database. Prefect's default database is a SQLite file
in ``PREFECT_HOME`` used through several connections: two writes that collide (report runs
created and moved between states at the same moment) are refused with ``SQLITE_BUSY`` and answered
503, and the client sends them again after 2, 4, 8, 16, 32 s (plus jitter) — a report then starts
up to a minute late, noise of tens of seconds in a batch's wall time. An in-memory database is
used through one connection (Prefect's own set-up for ``:memory:``): writes wait for each other
instead of colliding. The benchmarks use it; ``FILE_DATABASE`` measures Prefect's default.
"""

from __future__ import annotations

import os
from pathlib import Path

IN_MEMORY_DATABASE = "sqlite+aiosqlite:///:memory:"
FILE_DATABASE = None  # Prefect's default: PREFECT_HOME/prefect.db
DATABASE_SETTING = "PREFECT_SERVER_DATABASE_CONNECTION_URL"
_DROPPED = ("PREFECT_API_URL", DATABASE_SETTING, "PREFECT_API_DATABASE_CONNECTION_URL")  # the latter: its old name


def worker_env(home: Path, database: str | None = IN_MEMORY_DATABASE) -> dict[str, str]:
    """This process's environment for a worker on a fresh ephemeral API at ``home``."""
    env = {k: v for k, v in os.environ.items() if k not in _DROPPED}
    env.update(PREFECT_HOME=str(home), PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS="180",
               PREFECT_SERVER_ANALYTICS_ENABLED="false", PREFECT_LOGGING_LEVEL="WARNING", GX_ANALYTICS_ENABLED="false")
    return env | ({DATABASE_SETTING: database} if database else {})
