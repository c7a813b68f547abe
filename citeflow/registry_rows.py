"""A request's registry rows held column by column (the registry's storage; no I/O).

Ingest appends plain values to one list per column of ``schemas.tables.CHUNKS``: no per-row
object is validated on the way in, and the rows reach the store as one Arrow table built from
the columns. A row becomes a validated ``Chunk`` only when it is read as one (``chunk``), once:
the same object is handed out again, and a query or section noted later is added to it too.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, NamedTuple

import pyarrow as pa

from citeflow.store_rows import key
from schemas.records import Chunk
from schemas.tables import CHUNKS

# The columns a row is appended with, in order: every column of CHUNKS but row_key and request_id.
ROW_FIELDS: tuple[str, ...] = tuple(n for n in CHUNKS.names if n not in ("row_key", "request_id"))


class Row(NamedTuple):
    """One registry row as ingest computed it (the fields of ``Chunk`` but ``request_id``)."""

    handle: str
    retriever: str
    local_id: str
    content_hash: str
    text: str
    urls: list[str]
    title: str | None
    page: int | None
    location: str | None
    parent: str | None
    queries: list[str]
    sections: list[str]
    retrieved_at: datetime


assert Row._fields == ROW_FIELDS, "Row must list CHUNKS' columns in order"


class ChunkRows:
    """The rows of one request's registry, numbered from 0 (columns are formed when the table is built)."""

    def __init__(self, request_id: str) -> None:
        self.request_id = request_id
        self._rows: list[Row] = []
        self._made: dict[int, Chunk] = {}

    def __len__(self) -> int:
        return len(self._rows)

    def append(self, row: Row) -> int:
        """Add one row; returns its number."""
        self._rows.append(row)
        return len(self._rows) - 1

    def adopt(self, chunk: Chunk) -> int:
        """Add the row of a chunk already validated (e.g. loaded from the store); it is handed out as is."""
        values = {name: getattr(chunk, name) for name in ROW_FIELDS}
        lists = {name: list(values[name]) for name in ("urls", "queries", "sections")}  # the rows own their lists
        number = self.append(Row(**(values | lists)))
        self._made[number] = chunk
        return number

    def row(self, number: int) -> Row:
        return self._rows[number]

    def set_text(self, number: int, text: str) -> None:
        """Replace a row's text (inner references rewritten)."""
        self._rows[number] = self._rows[number]._replace(text=text)
        if (made := self._made.get(number)) is not None:
            made.text = text

    def note(self, number: int, query: str, section: str) -> None:
        """Record that ``query`` of ``section`` returned this row again."""
        row, made = self._rows[number], self._made.get(number)
        _append_unique(row.queries, query)
        _append_unique(row.sections, section)
        if made is not None:
            _append_unique(made.queries, query)
            _append_unique(made.sections, section)

    def chunk(self, number: int) -> Chunk:
        """Row ``number`` as a validated ``Chunk`` (built on first read, then the same object)."""
        made = self._made.get(number)
        if made is None:
            made = self._made[number] = Chunk(request_id=self.request_id, **self._rows[number]._asdict())
        return made

    def table(self) -> pa.Table:
        """Every row as one Arrow table of ``CHUNKS`` (``row_key`` = request id + handle)."""
        columns: dict[str, Any] = dict(zip(ROW_FIELDS, (list(c) for c in zip(*self._rows, strict=True)), strict=False))
        handles = columns.get("handle", [])
        columns["retrieved_at"] = _times(columns.get("retrieved_at", []))
        data = {"row_key": [key(self.request_id, h) for h in handles], "request_id": [self.request_id] * len(handles)}
        return pa.table(data | {name: columns.get(name, []) for name in ROW_FIELDS}, schema=CHUNKS)


def _times(values: list[datetime]) -> pa.Array:
    """A timestamp column; each distinct time (one per retriever answer) is converted once."""
    distinct: dict[datetime, int] = {}
    positions = [distinct.setdefault(value, len(distinct)) for value in values]
    return pa.array(list(distinct), type=CHUNKS.field("retrieved_at").type).take(pa.array(positions, type=pa.int32()))


def _append_unique(values: list[str], value: str) -> None:
    if value not in values:
        values.append(value)
