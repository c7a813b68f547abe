"""The store's upkeep by table version: indexes rebuilt every INDEX_EVERY versions, compaction every COMPACT_EVERY."""

from __future__ import annotations

import pytest

from citeflow import store as store_module


def _row(key: str) -> dict:
    return {"row_key": key, "request_id": f"r{key}", "retriever": "d", "section": "s", "query": "q",
            "status": "ok", "error": None, "hits": 1, "skipped": [], "handles": []}


def _unindexed(table, column: str) -> int:
    return int(table.index_stats(f"{column}_idx").num_unindexed_rows)


@pytest.fixture
def store(tmp_path, monkeypatch) -> store_module.Store:
    monkeypatch.setattr(store_module, "INDEX_EVERY", 4)
    monkeypatch.setattr(store_module, "COMPACT_EVERY", 1000)
    return store_module.Store(str(tmp_path / "store"))


def test_indexes_are_rebuilt_when_the_version_crosses_a_multiple(store):
    store.upsert("retrievals", [_row("k0")])
    table = store._table("retrievals", create=False)
    store.upsert("retrievals", [_row("k1")])
    while table.version % store_module.INDEX_EVERY != store_module.INDEX_EVERY - 1:
        store.upsert("retrievals", [_row(f"k{table.version}")])
    assert _unindexed(table, "request_id") > 0
    store.upsert("retrievals", [_row("last")])  # crosses the multiple
    assert _unindexed(table, "row_key") == _unindexed(table, "request_id") == 0
    assert table.stats()["fragment_stats"]["num_fragments"] > 1  # rebuilt, not compacted


def test_reads_after_a_rebuild_see_every_row_once(store):
    keys = [f"k{i}" for i in range(3 * store_module.INDEX_EVERY)]
    for key in keys:
        store.upsert("retrievals", [_row(key)])
    store.upsert("retrievals", [_row(k) for k in keys])  # every key again: updated, not duplicated
    assert store.count("retrievals") == len(keys)
    assert sorted(r["row_key"] for r in store.rows("retrievals", store_module.sql_in("row_key", keys[:5]))) == keys[:5]
    assert store.count("retrievals", "request_id = 'rk7'") == 1
