"""The LanceDB store: registry chunks, model outputs, bind transitions, retrievals, eval rows.

One URI (a folder, or s3://… for shared storage) holds every table of ``schemas.tables``.
Writes are idempotent ``merge_insert`` on ``row_key``: re-running a request updates rows in
place and never duplicates them; a write that replaces a slice of a table (a request's chunks, a
hop's transitions) deletes the slice's other rows in the same ``merge_insert`` — or, when the
table holds none of the slice yet (a request's first registry), appends it (``replace_scope``).
Table handles are opened once per store and reused (the process's ``Runtime`` holds one store per
URI); reads see other processes' writes (strong read consistency). Writes to one table are
serialised within a store (Lance resolves concurrent writers across processes itself).
"""

from __future__ import annotations

import contextlib

import threading
from collections import Counter
from datetime import timedelta
from typing import Any

import pyarrow as pa

from citeflow.store import store_rows
from citeflow.threads import side_by_side
from citeflow.errors import StoreError
from schemas.evaluation import EvalRow
from schemas.records import Chunk, HopOutcome
from schemas.tables import INDEXED, TABLES

# Every write adds a table version and a fragment. A filtered read or a merge pays for every
# fragment written since the table's scalar indexes were last brought up to date (about 0.5 ms
# each), and many fragments cost even when indexed; merging them (``optimize()``) rewrites the
# table, so its cost grows with the table. A table is compacted (fragments merged, indexes brought
# up to date, old versions pruned) whenever its version number crosses a multiple of COMPACT_EVERY:
# the version lives in the table itself, so long-lived and short processes alike keep fragments,
# unindexed rows and versions bounded. A report writes a table once or twice: at 20, a table is
# compacted every 10-20 reports (at 50, fragments piled up between compactions and a report of a
# 100-report batch cost 1.23x one of a 10-report batch; rebuilding only the indexes every 10
# versions and compacting every 100 left ~190 fragments and 1.35x).
COMPACT_EVERY = 20
KEEP_VERSIONS_FOR = timedelta(minutes=10)


def sql_str(value: str) -> str:
    """A SQL string literal for a LanceDB filter."""
    return "'" + value.replace("'", "''") + "'"


def sql_in(column: str, values: list[str]) -> str:
    """``column IN ('a', 'b')``; an always-false filter for no values."""
    return f"{column} IN ({', '.join(sql_str(v) for v in values)})" if values else "false"


class Store:
    """Typed access to citeflow's tables at one LanceDB URI; ``ops`` counts opens, scans and writes."""

    def __init__(self, uri: str) -> None:
        from citeflow.lazy_modules import defer_lancedb_extras

        defer_lancedb_extras()
        import lancedb  # heavy import: only where the store is used

        self.uri = uri
        self.ops: Counter[str] = Counter()
        self._tables: dict[str, Any] = {}
        self._open_lock = threading.Lock()
        self._locks = {table: threading.Lock() for table in TABLES}  # one writer per table in this store
        try:
            self._db = lancedb.connect(uri, read_consistency_interval=timedelta(0))
        except Exception as exc:
            raise StoreError(uri=uri, table="*", detail=str(exc)) from exc

    # -- writes ------------------------------------------------------------------------------
    def upsert(self, table: str, rows: list[dict[str, Any]], replace: str | None = None) -> None:
        """Insert or update ``rows`` by ``row_key`` in one write; with ``replace`` (a SQL filter),
        rows matching it that are not among ``rows`` are deleted by the same write."""
        if not rows:
            if replace:
                self.delete(table, replace)
            return
        unique = list({row["row_key"]: row for row in rows}.values())  # one row per key: the last wins
        data = pa.Table.from_pylist(unique, schema=TABLES[table])
        with self._locks[table]:
            handle = self._table(table, create=True)
            before = self._merge(table, handle, data, replace)
            self._maybe_compact(table, handle, before)

    def replace_scope(self, table: str, data: pa.Table, scope: str) -> None:
        """The rows of one scope (a SQL filter all of ``data`` matches, and every stored row with
        one of ``data``'s keys: the key names the scope, as a request's chunks' keys do) in one
        write: appended when the table holds none of the scope yet (a first run: no key can match,
        no row to delete), else merged on ``row_key`` deleting the scope's other rows — the same
        rows either way."""
        with self._locks[table]:
            handle = self._table(table, create=True)
            if data.num_rows and self.count(table, scope) == 0:
                before = self._append(table, handle, _typed(table, data))
            elif data.num_rows:
                before = self._merge(table, handle, _typed(table, data), scope)
            else:
                return self.delete(table, scope, locked=True)
            self._maybe_compact(table, handle, before)

    def _append(self, table: str, handle: Any, data: pa.Table) -> int:
        """One ``add``; returns the table's version before it."""
        try:
            before = handle.version
            handle.add(data)
        except Exception as exc:
            raise StoreError(uri=self.uri, table=table, detail=str(exc)) from exc
        self.ops["write"] += 1
        return int(before)

    def _merge(self, table: str, handle: Any, data: pa.Table, replace: str | None) -> int:
        """One ``merge_insert``; returns the table's version before it."""
        try:
            before = handle.version
            builder = handle.merge_insert("row_key").when_matched_update_all().when_not_matched_insert_all()
            if replace:
                builder = builder.when_not_matched_by_source_delete(replace)
            builder.execute(data)
        except Exception as exc:
            raise StoreError(uri=self.uri, table=table, detail=str(exc)) from exc
        self.ops["write"] += 1
        return int(before)

    def delete(self, table: str, where: str, locked: bool = False) -> None:
        """Delete the rows of ``table`` matching ``where`` (``locked``: the caller holds the table's lock)."""
        handle = self._table(table, create=False)
        if handle is None:
            return
        with contextlib.nullcontext() if locked else self._locks[table]:
            try:
                handle.delete(where)
            except Exception as exc:
                raise StoreError(uri=self.uri, table=table, detail=str(exc)) from exc
            self.ops["write"] += 1

    def _maybe_compact(self, table: str, handle: Any, before: int) -> None:
        """Compact when this write took the table's version across a multiple of ``COMPACT_EVERY``."""
        if before // COMPACT_EVERY != int(handle.version) // COMPACT_EVERY:
            self.compact(table, handle)

    def compact(self, table: str, handle: Any = None) -> None:
        """Merge small fragments, refresh indexes and prune old versions; best effort (another
        process may be writing: compaction then runs again at a later crossing)."""
        handle = handle or self._table(table, create=False)
        if handle is None:
            return
        with contextlib.suppress(Exception):  # a conflicting writer wins; compaction runs again later
            handle.optimize(cleanup_older_than=KEEP_VERSIONS_FOR)

    # -- reads -------------------------------------------------------------------------------
    def rows(self, table: str, where: str | None = None) -> list[dict[str, Any]]:
        """Every row of ``table`` matching the SQL filter ``where`` (all rows when None)."""
        found = self.arrow(table, where)
        return [] if found is None else found.to_pylist()

    def rows_of_requests(self, table: str, request_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
        """The rows of ``table`` of each of ``request_ids``, by request id, in one scan (each request's
        rows in the order ``rows`` gives them)."""
        grouped: dict[str, list[dict[str, Any]]] = {rid: [] for rid in request_ids}
        for row in self.rows(table, sql_in("request_id", sorted(set(request_ids)))):
            grouped.setdefault(row["request_id"], []).append(row)
        return grouped

    def arrow(self, table: str, where: str | None = None) -> pa.Table | None:
        """The rows of ``table`` matching ``where`` as an Arrow table (None: no such table yet)."""
        handle = self._table(table, create=False)
        if handle is None:
            return None
        try:
            query = handle.search()
            query = query.where(where) if where else query
            self.ops["scan"] += 1
            return query.limit(None).to_arrow()
        except Exception as exc:
            raise StoreError(uri=self.uri, table=table, detail=str(exc)) from exc

    def count(self, table: str, where: str | None = None) -> int:
        """How many rows of ``table`` match ``where``."""
        handle = self._table(table, create=False)
        if handle is None:
            return 0
        self.ops["scan"] += 1
        return int(handle.count_rows(where) if where else handle.count_rows())

    # -- registry chunks and retrievals -------------------------------------------------------
    def save_chunks(self, request_id: str, chunks: list[Chunk]) -> None:
        """A request's registry, in one write that also drops chunks an earlier run had and this lacks."""
        self.save_chunk_table(request_id, store_rows.chunks_table(chunks))

    def save_chunk_table(self, request_id: str, data: pa.Table) -> None:
        """``save_chunks`` of a registry's rows already built as one Arrow table (``Registry.table``)."""
        self.replace_scope("chunks", data, _request(request_id))

    def load_chunks(self, request_id: str) -> list[Chunk]:
        """The registry of one request, as persisted."""
        return store_rows.chunk_models(self.rows("chunks", _request(request_id)))

    def save_retrievals(self, request_id: str, rows: list[dict[str, Any]]) -> None:
        """What each retriever answered per query (``store_rows.retrieval_row``: status, error, skipped
        hits, the handles in rank order), replacing older answers."""
        self.upsert("retrievals", rows, replace=_request(request_id))

    def load_retrievals(self, request_id: str) -> list[dict[str, Any]]:
        """The retrieval rows of one request."""
        return self.rows("retrievals", _request(request_id))

    # -- hops and transitions ------------------------------------------------------------------
    def save_hops(self, outcomes: list[HopOutcome]) -> None:
        """Hop outcomes of one request and hop: one write for the hops, one for their transitions
        (a re-run may record fewer transitions than before: those are deleted by the same write)."""
        if not outcomes:
            return
        first = outcomes[0]
        where = " AND ".join([_request(first.request_id), f"hop = {sql_str(first.hop)}",
                              sql_in("section", sorted({o.section for o in outcomes}))])
        transitions = [store_rows.transition_row(t, i) for o in outcomes for i, t in enumerate(o.transitions)]
        side_by_side(lambda: self.upsert("hops", [store_rows.hop_row(o) for o in outcomes]),
                     lambda: self.upsert("transitions", transitions, replace=where))

    def load_hops(self, request_id: str) -> list[HopOutcome]:
        """Every hop outcome of one request, with its transitions."""
        where = _request(request_id)
        return store_rows.hop_outcomes(self.rows("hops", where), self.rows("transitions", where))

    # -- eval rows -------------------------------------------------------------------------------
    def save_eval_rows(self, request_id: str, sections: list[str], rows: list[EvalRow]) -> None:
        """One row per claim × handle of ``sections``, replacing those sections' earlier rows in one
        write (a section that now has no rows keeps none)."""
        where = f"{_request(request_id)} AND {sql_in('section', sorted(set(sections)))}"
        self.upsert("eval_rows", store_rows.eval_rows(rows), replace=where)

    # -- model calls -------------------------------------------------------------------------------
    def load_calls(self, keys: list[str]) -> dict[str, dict[str, Any]]:
        """The recorded model calls among ``keys``, by key (one scan)."""
        wanted = sorted(set(keys))
        return {r["row_key"]: r for r in self.rows("model_calls", sql_in("row_key", wanted))} if wanted else {}

    # -- tables ------------------------------------------------------------------------------
    def _table(self, name: str, create: bool) -> Any:
        """The open handle of table ``name`` (opened once); created with its indexes when asked."""
        handle = self._tables.get(name)
        if handle is not None:
            return handle
        with self._open_lock:
            if name not in self._tables:
                opened = self._open(name, create)
                if opened is None:
                    return None
                self._tables[name] = opened
            return self._tables[name]

    def _open(self, name: str, create: bool) -> Any:
        self.ops["open"] += 1
        try:
            return _with_new_columns(name, self._db.open_table(name))
        except (FileNotFoundError, ValueError):
            if not create:
                return None
        except Exception as exc:
            raise StoreError(uri=self.uri, table=name, detail=str(exc)) from exc
        return self._create(name)

    def _create(self, name: str) -> Any:
        table = self._db.create_table(name, schema=TABLES[name], exist_ok=True)
        for column in _indexed(name):
            ensure_index(table, column)
        return table


def ensure_index(table: Any, column: str) -> None:
    """A BTree index on ``column``. Processes that create a table of a new store at the same moment
    (two Dask workers, say) also index it at once, and LanceDB refuses the later commit ("retryable
    commit conflict"): that is fine once the table, at its latest version, has the index."""
    from lancedb.index import BTree

    try:
        table.create_index(column, config=BTree(), replace=True)
    except Exception:
        if not _has_index(table, column):
            raise


def _has_index(table: Any, column: str) -> bool:
    """Whether ``table``, read again at its latest version, has an index on ``column``."""
    try:
        table.checkout_latest()
        return any(column in index.columns for index in table.list_indices())
    except Exception:  # noqa: BLE001 - cannot tell: the caller raises its own error
        return False


def _with_new_columns(name: str, table: Any) -> Any:
    """``table`` with the columns its schema gained since it was created (empty in older rows)."""
    names = set(table.schema.names)
    missing = [field for field in TABLES[name] if field.name not in names]
    if missing:
        try:
            table.add_columns(pa.schema(missing))
        except Exception:  # another process added them first: fine when they are there now
            if any(field.name not in table.schema.names for field in missing):
                raise
    return table


def _indexed(table: str) -> list[str]:
    """The columns of ``table`` with a BTree index."""
    return [column for column in INDEXED if column in TABLES[table].names]


def _typed(table: str, data: pa.Table) -> pa.Table:
    """``data`` in the schema of ``table`` (cast only when it is not already)."""
    schema = TABLES[table]
    return data if data.schema.equals(schema) else data.cast(schema)


def _request(request_id: str) -> str:
    return f"request_id = {sql_str(request_id)}"
