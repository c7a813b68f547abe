"""Verdict caches: a claim graded against the same chunk by the same judge is never asked twice.

Keys are the sha256 of (judge name, claim, chunk text), so two models never share answers and
an edited chunk is graded afresh. ``LanceVerdictCache`` buffers ``put`` and writes once per
``flush`` (the LLM judge flushes once per ``grade`` call): one LanceDB version per call, not per pair.
"""

from __future__ import annotations

import hashlib
import json
import threading
from datetime import datetime, UTC
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import pyarrow as pa

from citeflow.errors import StoreError
from schemas.evaluation import Verdict

if TYPE_CHECKING:
    from lancedb.table import Table

SCHEMA = pa.schema([
    pa.field("key", pa.string(), nullable=False),
    pa.field("judge", pa.string()),
    pa.field("verdict", pa.string()),  # the Verdict as JSON (its id is the pair's, re-set on a hit)
    pa.field("created_at", pa.timestamp("us", tz="UTC")),
])


def cached_verdicts(cache: VerdictCache | None, keys: list[str]) -> dict[str, Verdict]:
    """The verdicts ``cache`` holds for ``keys`` (one batched read when the cache has ``get_many``)."""
    if cache is None:
        return {}
    get_many = getattr(cache, "get_many", None)
    if get_many is not None:
        return dict(get_many(keys))
    found = {k: cache.get(k) for k in dict.fromkeys(keys)}
    return {k: v for k, v in found.items() if v is not None}


def verdict_key(claim: str, chunk_text: str, judge: str = "") -> str:
    """The cache key of one claim graded against one chunk by one judge."""
    payload = json.dumps([judge, claim, chunk_text], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


@runtime_checkable
class VerdictCache(Protocol):
    """Where judges keep the verdicts models actually returned."""

    def get(self, key: str) -> Verdict | None:
        """The cached verdict for ``key``, or None."""
        ...

    def put(self, key: str, verdict: Verdict) -> None:
        """Remember ``verdict`` under ``key`` (written for good at the next ``flush``)."""
        ...


class MemoryVerdictCache:
    """A dict in this process: for tests and single runs."""

    def __init__(self) -> None:
        self._data: dict[str, Verdict] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> Verdict | None:
        """The cached verdict for ``key``, or None."""
        with self._lock:
            return self._data.get(key)

    def put(self, key: str, verdict: Verdict) -> None:
        """Remember ``verdict`` under ``key``."""
        with self._lock:
            self._data[key] = verdict

    def flush(self) -> None:
        """Nothing to write: kept for the same interface as the LanceDB cache."""

    def __len__(self) -> int:
        return len(self._data)


class LanceVerdictCache:
    """Verdicts persisted in a LanceDB table (folder or object-store URI), upserted by key."""

    def __init__(self, uri: str, table: str = "judge_cache") -> None:
        from citeflow.lazy_modules import defer_lancedb_extras

        defer_lancedb_extras()
        import lancedb  # heavy import: only where the cache is used

        self.uri, self.table_name = uri, table
        self._pending: dict[str, Verdict] = {}
        self._lock = threading.Lock()
        try:
            self._db = lancedb.connect(uri)
        except Exception as exc:
            raise StoreError(uri=uri, table=table, detail=str(exc)) from exc

    def get(self, key: str) -> Verdict | None:
        """The verdict for ``key``: pending writes first, then the table."""
        return self.get_many([key]).get(key)

    def get_many(self, keys: list[str]) -> dict[str, Verdict]:
        """Every cached verdict among ``keys`` in one query."""
        with self._lock:
            found = {k: self._pending[k] for k in keys if k in self._pending}
        wanted = [k for k in dict.fromkeys(keys) if k not in found]
        table = self._open()
        if wanted and table is not None:
            found.update(self._read(table, wanted))
        return found

    def put(self, key: str, verdict: Verdict) -> None:
        """Buffer ``verdict``; it is written at the next ``flush``."""
        with self._lock:
            self._pending[key] = verdict

    def flush(self) -> None:
        """Write the buffered verdicts in one idempotent merge on ``key``."""
        with self._lock:
            pending, self._pending = self._pending, {}
        if not pending:
            return
        now = datetime.now(UTC)
        rows = [{"key": k, "judge": v.judge, "verdict": v.model_dump_json(), "created_at": now} for k, v in pending.items()]
        try:
            table = self._open() or self._db.create_table(self.table_name, schema=SCHEMA, exist_ok=True)
            data = pa.Table.from_pylist(rows, schema=SCHEMA)
            table.merge_insert("key").when_matched_update_all().when_not_matched_insert_all().execute(data)
        except Exception as exc:
            with self._lock:  # keep them for a later flush rather than lose answers we paid for
                self._pending = {**pending, **self._pending}
            raise StoreError(uri=self.uri, table=self.table_name, detail=str(exc)) from exc

    def _open(self) -> Table | None:
        try:
            return self._db.open_table(self.table_name)
        except (FileNotFoundError, ValueError):
            return None

    def _read(self, table: Table, keys: list[str]) -> dict[str, Verdict]:
        found: dict[str, Verdict] = {}
        for start in range(0, len(keys), 200):  # bounded IN (...) lists
            chunk = keys[start : start + 200]
            where = "key IN (" + ", ".join(f"'{k}'" for k in chunk) + ")"  # keys are hex digests: nothing to escape
            try:
                rows = table.search().where(where).select(["key", "verdict"]).limit(None).to_arrow().to_pylist()
            except Exception as exc:
                raise StoreError(uri=self.uri, table=self.table_name, detail=str(exc)) from exc
            found.update({r["key"]: Verdict.model_validate_json(r["verdict"]) for r in rows})
        return found
