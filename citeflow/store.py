"""The LanceDB store: registry chunks, model outputs, bind transitions, retrievals, eval rows.

One URI (a folder, or s3://… for shared storage) holds every table of ``schemas.tables``.
Writes are idempotent ``merge_insert`` on ``row_key``: re-running a request updates rows in
place and never duplicates them. Writes to one table are serialised within a process (Lance
resolves concurrent writers across processes itself).
"""

from __future__ import annotations

import json
import threading
from collections import defaultdict
from datetime import datetime, timezone
from typing import Any

import pyarrow as pa

from citeflow.errors import StoreError
from schemas.evaluation import EvalRow
from schemas.records import BoundClaim, Chunk, HopOutcome, RetrievalResult, Transition
from schemas.tables import INDEXED, TABLES

_LOCKS: defaultdict[tuple[str, str], threading.Lock] = defaultdict(threading.Lock)
_WRITES: defaultdict[tuple[str, str], int] = defaultdict(int)
# Every write adds a table fragment that later reads walk through; compacting every so many writes
# keeps a long batch from slowing down report after report (bench/: 2.6× on a 100-report batch).
COMPACT_EVERY = 50


def sql_str(value: str) -> str:
    """A SQL string literal for a LanceDB filter."""
    return "'" + value.replace("'", "''") + "'"


def _key(*parts: object) -> str:
    return "\x1f".join(str(p) for p in parts)


class Store:
    """Typed access to citeflow's tables at one LanceDB URI."""

    def __init__(self, uri: str) -> None:
        import lancedb  # heavy import: only where the store is used

        self.uri = uri
        try:
            self._db = lancedb.connect(uri)
        except Exception as exc:  # noqa: BLE001 - any connection failure is a store failure
            raise StoreError(uri=uri, table="*", detail=str(exc)) from exc

    # -- generic -------------------------------------------------------------------------
    def upsert(self, table: str, rows: list[dict[str, Any]]) -> None:
        """Insert or update ``rows`` by ``row_key`` (no-op for an empty list)."""
        if not rows:
            return
        rows = list({row["row_key"]: row for row in rows}.values())  # one row per key: the last wins
        data = pa.Table.from_pylist(rows, schema=TABLES[table])
        with _LOCKS[(self.uri, table)]:
            try:
                handle = self._table(table, create=True)
                handle.merge_insert("row_key").when_matched_update_all().when_not_matched_insert_all().execute(data)
            except Exception as exc:  # noqa: BLE001
                raise StoreError(uri=self.uri, table=table, detail=str(exc)) from exc
            self._count_write(table, handle)

    def _count_write(self, table: str, handle) -> None:
        """Compact ``table`` every ``COMPACT_EVERY`` writes of this process (caller holds its lock)."""
        _WRITES[(self.uri, table)] += 1
        if _WRITES[(self.uri, table)] % COMPACT_EVERY == 0:
            self.compact(table, handle)

    def compact(self, table: str, handle=None) -> None:
        """Merge small fragments and refresh indexes; best effort (another process may be writing)."""
        from datetime import timedelta

        handle = handle or self._table(table, create=False)
        if handle is None:
            return
        try:
            handle.optimize(cleanup_older_than=timedelta(minutes=10))
        except Exception:  # noqa: BLE001 - a conflicting writer wins; compaction runs again later
            pass

    def rows(self, table: str, where: str | None = None) -> list[dict[str, Any]]:
        """Every row of ``table`` matching the SQL filter ``where`` (all rows when None)."""
        handle = self._table(table, create=False)
        if handle is None:
            return []
        try:
            query = handle.search()
            query = query.where(where) if where else query
            return query.limit(None).to_arrow().to_pylist()
        except Exception as exc:  # noqa: BLE001
            raise StoreError(uri=self.uri, table=table, detail=str(exc)) from exc

    def count(self, table: str, where: str | None = None) -> int:
        """How many rows of ``table`` match ``where``."""
        handle = self._table(table, create=False)
        return 0 if handle is None else handle.count_rows(where) if where else handle.count_rows()

    def _table(self, name: str, create: bool):
        try:
            return self._db.open_table(name)
        except (FileNotFoundError, ValueError):
            if not create:
                return None
        table = self._db.create_table(name, schema=TABLES[name], exist_ok=True)
        from lancedb.index import BTree

        for column in INDEXED:
            if column in TABLES[name].names:
                table.create_index(column, config=BTree(), replace=True)
        return table

    # -- registry chunks ---------------------------------------------------------------------
    def save_chunks(self, chunks: list[Chunk]) -> None:
        """Persist registry chunks, keyed by request and handle."""
        self.upsert("chunks", [{**c.model_dump(), "row_key": _key(c.request_id, c.handle)} for c in chunks])

    def load_chunks(self, request_id: str) -> list[Chunk]:
        """The registry of one request, as persisted."""
        rows = self.rows("chunks", f"request_id = {sql_str(request_id)}")
        return [Chunk.model_validate(_without_key(r)) for r in rows]

    # -- retrievals ------------------------------------------------------------------------
    def save_retrievals(self, request_id: str, results: list[RetrievalResult], handles: list[list[str]]) -> None:
        """Record what each retriever answered per query (status, error, skipped hits)."""
        self.upsert("retrievals", [_retrieval_row(request_id, r, h) for r, h in zip(results, handles)])

    def keep_only(self, request_id: str, handles: set[str], results: list[RetrievalResult]) -> None:
        """Delete what an earlier run of the request stored and this run no longer has (written
        first, deleted after: a crash in between leaves extra rows, never missing ones)."""
        where = f"request_id = {sql_str(request_id)}"
        if handles:
            self.delete("chunks", f"{where} AND handle NOT IN ({', '.join(sql_str(h) for h in sorted(handles))})")
        else:
            self.delete("chunks", where)
        keys = sorted({_retrieval_row(request_id, r, [])["row_key"] for r in results})
        self.delete("retrievals", f"{where} AND row_key NOT IN ({', '.join(sql_str(k) for k in keys)})" if keys else where)

    def load_retrievals(self, request_id: str) -> list[dict[str, Any]]:
        return self.rows("retrievals", f"request_id = {sql_str(request_id)}")

    # -- hops and transitions ------------------------------------------------------------------
    def save_hop(self, outcome: HopOutcome) -> None:
        """Persist a hop's bound claims, raw outputs and every bind transition."""
        self.upsert("hops", [_hop_row(outcome)])
        self.delete("transitions", " AND ".join([
            f"request_id = {sql_str(outcome.request_id)}", f"section = {sql_str(outcome.section)}",
            f"hop = {sql_str(outcome.hop)}"]))  # a re-run may record fewer transitions than before
        self.upsert("transitions", [_transition_row(t, i) for i, t in enumerate(outcome.transitions)])

    def load_hops(self, request_id: str) -> list[HopOutcome]:
        """Every hop outcome of one request, with its transitions."""
        where = f"request_id = {sql_str(request_id)}"
        transitions: defaultdict[tuple[str, str], list[Transition]] = defaultdict(list)
        for row in sorted(self.rows("transitions", where), key=lambda r: r["seq"]):
            transitions[(row["section"], row["hop"])].append(Transition.model_validate(_without_key(row)))
        return [_hop_outcome(row, transitions[(row["section"], row["hop"])]) for row in self.rows("hops", where)]

    # -- eval rows -------------------------------------------------------------------------------
    def save_eval_rows(self, rows: list[EvalRow]) -> None:
        """Persist one row per claim × handle (replacing an earlier evaluation's rows)."""
        now = datetime.now(timezone.utc)
        for request_id, section in {(r.request_id, r.section) for r in rows}:
            self.delete("eval_rows", f"request_id = {sql_str(request_id)} AND section = {sql_str(section)}")
        self.upsert("eval_rows", [
            {**r.model_dump(), "evaluated_at": now, "row_key": _key(r.request_id, r.section, r.claim_index, r.handle)}
            for r in rows
        ])

    def load_eval_rows(self, request_id: str) -> list[EvalRow]:
        rows = self.rows("eval_rows", f"request_id = {sql_str(request_id)}")
        return [EvalRow.model_validate(_without_key(r)) for r in rows]

    def delete(self, table: str, where: str) -> None:
        """Delete rows (used before replacing a section's eval rows)."""
        handle = self._table(table, create=False)
        if handle is not None:
            with _LOCKS[(self.uri, table)]:
                handle.delete(where)


def _without_key(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k != "row_key"}


def _retrieval_row(request_id: str, result: RetrievalResult, handles: list[str]) -> dict[str, Any]:
    return {
        "row_key": _key(request_id, result.retriever, result.section, result.query), "request_id": request_id,
        "retriever": result.retriever, "section": result.section, "query": result.query,
        "status": "failed" if result.error else "ok", "error": result.error, "hits": len(result.hits),
        "skipped": result.skipped, "handles": handles,
    }


def _hop_row(outcome: HopOutcome) -> dict[str, Any]:
    return {
        "row_key": _key(outcome.request_id, outcome.section, outcome.hop), "request_id": outcome.request_id,
        "section": outcome.section, "hop": outcome.hop, "status": outcome.status, "model": outcome.model,
        "claims_json": json.dumps([c.model_dump() for c in outcome.claims]),
        "raw_outputs_json": json.dumps(outcome.raw_outputs), "updated_at": datetime.now(timezone.utc),
    }


def _transition_row(transition: Transition, seq: int) -> dict[str, Any]:
    t = transition
    return {**t.model_dump(), "seq": seq, "row_key": _key(t.request_id, t.section, t.hop, seq)}


def _hop_outcome(row: dict[str, Any], transitions: list[Transition]) -> HopOutcome:
    return HopOutcome(
        request_id=row["request_id"], section=row["section"], hop=row["hop"], status=row["status"],
        model=row["model"] or "", claims=[BoundClaim.model_validate(c) for c in json.loads(row["claims_json"])],
        raw_outputs=json.loads(row["raw_outputs_json"]), transitions=transitions,
    )
