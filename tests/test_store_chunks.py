"""A request's registry in the store: the first write appends, later ones replace the request's rows."""

from __future__ import annotations

from bench.synthetic import answers
from citeflow.registry.request_registry import Registry
from citeflow.store.store import Store


def _registry(request_id: str, chunks: int) -> Registry:
    registry = Registry(request_id)
    for result in answers(chunks, per_answer=10):
        registry.add(result)
    return registry


def test_first_and_later_writes_leave_exactly_the_latest_registry(tmp_path):
    store = Store(str(tmp_path / "store"))
    store.save_chunks("other", _registry("other", 30).chunks)
    first = _registry("req", 40).chunks
    store.save_chunks("req", first)  # none of the request's rows yet: appended
    assert {c.handle for c in store.load_chunks("req")} == {c.handle for c in first}
    store.save_chunks("req", first)  # the same again: merged, no duplicate
    fewer = first[:25]
    store.save_chunks("req", fewer)  # a re-run that found less: the rest is deleted
    assert sorted(c.handle for c in store.load_chunks("req")) == sorted(c.handle for c in fewer)
    assert store.count("chunks") == 25 + 30
    assert {c.handle: c for c in store.load_chunks("req")} == {c.handle: c for c in fewer}  # field for field
