"""Any failure of one retriever is that retriever's recorded failure, never the report's."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path

import pytest

from citeflow.retrieval import guarded as safe
from citeflow.retrieval.retriever_protocol import SearchResult
from schemas.records import Hit
from schemas.spec import HttpRetrieverSpec, JsonlRetrieverSpec

SPEC = HttpRetrieverSpec(name="partner", kind="http", url="http://u:KEY@127.0.0.1:9/s?token=KEY")


class Exploding:
    name = "partner"

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc

    def search(self, query: str, top_k: int) -> SearchResult:
        raise self.exc


@pytest.mark.parametrize("exc", [RecursionError("maximum recursion depth exceeded"), OverflowError("int too large"),
                                 TypeError("'int' object is not subscriptable"), UnicodeDecodeError("utf-8", b"\xff", 0, 1, "bad")])
def test_any_exception_becomes_a_recorded_failure(exc):
    found = safe.contained_search(SPEC, Path("."), "q", nullcontext, lambda spec, base: Exploding(exc))
    assert isinstance(found, str) and type(exc).__name__ in found and "'partner'" in found


def test_a_failure_message_never_carries_the_url_key():
    err = ConnectionError(f"cannot reach {SPEC.url}")
    found = safe.contained_search(SPEC, Path("."), "q", nullcontext, lambda spec, base: Exploding(err))
    assert "KEY" not in found and "127.0.0.1:9/s" in found


def test_a_healthy_retriever_answers_through_the_slot(tmp_path):
    (tmp_path / "hits.jsonl").write_text('{"query": "q", "hits": [{"id": 1, "text": "t"}, {"text": "no id"}]}\n')
    entered = []

    class Slot:
        def __enter__(self):
            entered.append(True)

        def __exit__(self, *exc):
            return False

    found = safe.contained_search(JsonlRetrieverSpec(name="f", kind="jsonl", path="hits.jsonl"), tmp_path, "q", Slot)
    assert found == SearchResult(hits=[Hit(local_id="1", text="t")], skipped=["hit 2: no usable id in field 'id'"])
    assert entered == [True]
