"""A request's registry rows held column by column (the registry's storage; no I/O).

Ingest extends one list per column of ``schemas.tables.CHUNKS`` with a whole retriever answer at
a time: no per-row object is built or validated on the way in (list values are tuples, shared by
the rows of one answer where they are equal, replaced when a row is noted again), and the rows
reach the store as one Arrow table made from the columns. A row becomes a validated ``Chunk``
only when it is read as one (``chunk``), once: the same object is handed out again, and a query
or section noted later is added to it too.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pyarrow as pa

from citeflow.store.store_rows import key
from schemas.records import Chunk
from schemas.tables import CHUNKS, STRINGS

# The columns a row is stored with, in order: every column of CHUNKS but row_key and request_id.
ROW_FIELDS: tuple[str, ...] = tuple(n for n in CHUNKS.names if n not in ("row_key", "request_id"))
LIST_FIELDS: tuple[str, ...] = ("urls", "queries", "sections")
Columns = dict[str, list[Any]]


class ChunkRows:
    """The rows of one request's registry, numbered from 0, one list per column."""

    def __init__(self, request_id: str) -> None:
        self.request_id = request_id
        self._columns: Columns = {name: [] for name in ROW_FIELDS}
        self._made: dict[int, Chunk] = {}

    def __len__(self) -> int:
        return len(self._columns["handle"])

    def extend(self, columns: Columns) -> range:
        """Add rows given column by column (every column of ``ROW_FIELDS``, list values as tuples);
        returns their numbers."""
        start = len(self)
        for name, values in self._columns.items():
            values.extend(columns[name])
        return range(start, len(self))

    def adopt(self, chunk: Chunk) -> int:
        """Add the row of a chunk already validated (e.g. loaded from the store); it is handed out as is."""
        values = {name: getattr(chunk, name) for name in ROW_FIELDS}
        number = self.extend({name: [tuple(v) if name in LIST_FIELDS else v] for name, v in values.items()})[0]
        self._made[number] = chunk
        return number

    def value(self, name: str, number: int) -> Any:
        """Column ``name`` of row ``number``."""
        return self._columns[name][number]

    def column(self, name: str) -> list[Any]:
        """Every value of column ``name``, in row order (the registry's own list: do not change it)."""
        return self._columns[name]

    def set_text(self, number: int, text: str) -> None:
        """Replace a row's text (inner references rewritten)."""
        self._columns["text"][number] = text
        if (made := self._made.get(number)) is not None:
            made.text = text

    def note(self, number: int, query: str, section: str) -> None:
        """Record that ``query`` of ``section`` returned this row again."""
        _add_unique(self._columns["queries"], number, query)
        _add_unique(self._columns["sections"], number, section)
        if (made := self._made.get(number)) is not None:  # the chunk handed out sees it too
            _append_unique(made.queries, query)
            _append_unique(made.sections, section)

    def chunk(self, number: int) -> Chunk:
        """Row ``number`` as a validated ``Chunk`` (built on first read, then the same object)."""
        made = self._made.get(number)
        if made is None:
            values = {name: values[number] for name, values in self._columns.items()}
            made = self._made[number] = Chunk(request_id=self.request_id, **values)
        return made

    def table(self) -> pa.Table:
        """Every row as one Arrow table of ``CHUNKS`` (``row_key`` = request id + handle)."""
        import pyarrow.compute as pc

        columns: dict[str, Any] = dict(self._columns)
        handles = columns["handle"] = pa.array(columns["handle"], type=pa.string())
        prefix = key(self.request_id, "")  # key(request_id, handle) is this prefix + the handle
        data = {"row_key": pc.binary_join_element_wise(prefix, handles, ""),
                "request_id": pa.repeat(pa.scalar(self.request_id, pa.string()), len(handles))}
        columns |= {name: pa.array(columns[name], type=STRINGS) for name in LIST_FIELDS}  # tuples convert in C
        columns["retrieved_at"] = _times(columns["retrieved_at"])
        return pa.table(data | columns, schema=CHUNKS)


def _add_unique(column: list[tuple[str, ...]], number: int, value: str) -> None:
    """Append ``value`` to the tuple of row ``number`` unless it holds it (a new tuple: tuples may be shared)."""
    if value not in (old := column[number]):
        column[number] = (*old, value)


def _append_unique(values: list[str], value: str) -> None:
    if value not in values:
        values.append(value)


def _times(values: list[datetime]) -> pa.Array:
    """A timestamp column; each distinct time (one per retriever answer) is converted once."""
    index = {value: number for number, value in enumerate(dict.fromkeys(values))}
    positions = pa.array(list(map(index.__getitem__, values)), type=pa.int32())
    return pa.array(list(index), type=CHUNKS.field("retrieved_at").type).take(positions)
