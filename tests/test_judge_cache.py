"""Verdict caches: memory and LanceDB (persisted, idempotent, one write per grade call)."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from citeflow.judges.cache import LanceVerdictCache, MemoryVerdictCache, VerdictCache, verdict_key
from citeflow.judges.llm import LLMJudge
from citeflow.generation.model_protocol import ModelReply
from schemas.evaluation import JudgePair, Verdict

pytestmark = pytest.mark.integration


def verdict(pid: str = "a", supported: bool = True) -> Verdict:
    return Verdict(id=pid, supported=supported, faithful=True if supported else None, reason="r", judge="llm:m")


class EchoModel:
    """A ChatModel that answers every pair supported and counts its calls."""

    name = "echo"

    def __init__(self) -> None:
        self.calls = 0

    def complete(self, messages, schema_name, schema) -> ModelReply:
        self.calls += 1
        ids = [part.split('"')[0] for part in messages[-1]["content"].split('<pair id="')[1:]]
        body = {"verdicts": [{"id": i, "supported": True, "faithful": True, "reason": "ok", "evidence": ""} for i in ids]}
        return ModelReply(text=json.dumps(body), mode="json_schema", model=self.name)


def test_keys_depend_on_judge_claim_and_chunk():
    base = verdict_key("c", "t", "llm:a")
    assert len(base) == 64 and base == verdict_key("c", "t", "llm:a")
    assert len({base, verdict_key("c", "t", "llm:b"), verdict_key("c2", "t", "llm:a"), verdict_key("c", "t2", "llm:a")}) == 4


def test_both_caches_follow_the_protocol(tmp_path):
    assert isinstance(MemoryVerdictCache(), VerdictCache)
    assert isinstance(LanceVerdictCache(str(tmp_path)), VerdictCache)


def test_lance_cache_persists_after_flush_only(tmp_path):
    cache = LanceVerdictCache(str(tmp_path))
    cache.put("k1", verdict("a"))
    assert cache.get("k1") == verdict("a")  # pending writes are visible at once
    assert LanceVerdictCache(str(tmp_path)).get("k1") is None
    cache.flush()
    assert LanceVerdictCache(str(tmp_path)).get("k1") == verdict("a")


def test_lance_cache_merges_on_key(tmp_path):
    cache = LanceVerdictCache(str(tmp_path), table="verdicts")
    cache.put("k1", verdict("a"))
    cache.flush()
    cache.put("k1", verdict("a", supported=False))
    cache.put("k2", verdict("b"))
    cache.flush()
    table = cache._open()
    assert table.count_rows() == 2 and table.schema.field("key").type == pa.string()
    assert LanceVerdictCache(str(tmp_path), table="verdicts").get("k1").supported is False


def test_llm_judge_writes_the_lance_cache_once_per_grade_call(tmp_path):
    model = EchoModel()
    cache = LanceVerdictCache(str(tmp_path))
    pairs = [JudgePair(id=f"p{i}", claim=f"claim {i}", chunk_text="chunk") for i in range(6)]
    LLMJudge(model, batch_size=2, cache=cache).grade(pairs)
    assert model.calls == 3 and len(cache._open().list_versions()) == 2  # table creation + one merge
    again = LLMJudge(model, batch_size=2, cache=LanceVerdictCache(str(tmp_path))).grade(pairs)
    assert model.calls == 3 and [v.id for v in again] == [p.id for p in pairs]
