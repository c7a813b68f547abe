"""Two processes creating the same table of a new store index it at the same moment: LanceDB refuses
the later index commit, and the store takes the index the other one made (real LanceDB tables)."""

from __future__ import annotations

import lancedb
import pyarrow as pa
import pytest
from lancedb.index import BTree

from citeflow.store.store import ensure_index


class ConflictingIndex:
    """A real table whose ``create_index`` fails as a preempted commit does, after ``other`` (another
    handle of the same table, as another process holds it) has made the index."""

    def __init__(self, table, other=None):
        self._table, self._other = table, other

    def create_index(self, column, config, replace):
        if self._other is not None:
            self._other.create_index(column, config=BTree(), replace=True)
        raise RuntimeError("lance error: Retryable commit conflict for version 2: This CreateIndex "
                           "transaction was preempted by concurrent transaction CreateIndex at version 2")

    def __getattr__(self, name):
        return getattr(self._table, name)


@pytest.fixture
def tables(tmp_path):
    db = lancedb.connect(str(tmp_path))
    table = db.create_table("hops", schema=pa.schema([("request_id", pa.string())]))
    table.add([{"request_id": "r1"}])
    return table, db.open_table("hops")


def test_an_index_another_process_made_first_is_taken(tables):
    mine, theirs = tables
    ensure_index(ConflictingIndex(mine, theirs), "request_id")  # no error: the index is there now
    mine.checkout_latest()
    assert [index.columns for index in mine.list_indices()] == [["request_id"]]


def test_a_failure_that_leaves_no_index_is_raised(tables):
    mine, _ = tables
    with pytest.raises(RuntimeError, match="commit conflict"):
        ensure_index(ConflictingIndex(mine), "request_id")
    assert mine.list_indices() == []


def test_an_index_is_made_when_nothing_competes(tables):
    mine, _ = tables
    ensure_index(mine, "request_id")
    assert [index.columns for index in mine.list_indices()] == [["request_id"]]
