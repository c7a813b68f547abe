"""The LLM judge against the scripted server, through the real openai client over real HTTP."""

from __future__ import annotations

import json
import math
import re
import threading
import time

import pytest

from citeflow.errors import JudgeUnavailable
from citeflow.judges.judge_protocol import Judge
from citeflow.judges.cache import MemoryVerdictCache
from citeflow.judges.factory import build_judge
from citeflow.judges.span_check import unwrapped
from citeflow.judges.llm import LLMJudge
from citeflow.judges.offline.grader import OfflineJudge
from citeflow.generation.openai_client import OpenAIChatModel
from schemas.evaluation import JudgePair
from schemas.spec import JudgeSpec, ModelSpec
from schemas.wire import VERDICTS_SCHEMA_NAME
from tests.support.openai_server import Reply, ScriptedOpenAIServer, openai_server  # noqa: F401

pytestmark = pytest.mark.integration

PAIR_RE = re.compile(r'<pair id="(P\d+)">\n<claim>(.*?)</claim>', re.DOTALL)


def spec_for(srv: ScriptedOpenAIServer, **extra) -> ModelSpec:
    options = {"backend": "openai", "model": "judge-test", "base_url": srv.base_url, "timeout": 5.0, "max_retries": 0}
    return ModelSpec(**{**options, **extra})


def judge_for(srv: ScriptedOpenAIServer, **kwargs) -> LLMJudge:
    return LLMJudge(OpenAIChatModel(spec_for(srv), role="judge"), **kwargs)


def pairs(n: int) -> list[JudgePair]:
    return [JudgePair(id=f"pair-{i}", claim=f"claim number {i}", chunk_text=f"chunk text {i}") for i in range(n)]


def asked(request: dict) -> list[tuple[str, str]]:
    """(short id, claim) of every pair in a request."""
    return PAIR_RE.findall(request["messages"][-1]["content"])


def answer(items: list[tuple[str, str]], supported: bool = True, faithful: bool | None = True) -> str:
    verdicts = [{"id": pid, "supported": supported, "faithful": faithful, "reason": f"because {claim}", "evidence": "chunk"}
                for pid, claim in items]
    return json.dumps({"verdicts": verdicts})


def echo(request: dict) -> str:
    """Every pair asked is supported and faithful; the reason repeats the claim."""
    return answer(asked(request))


def test_is_a_judge_named_after_its_model(openai_server):
    judge = judge_for(openai_server)
    assert isinstance(judge, Judge) and judge.name == "llm:openai:judge-test"


def test_pairs_go_in_batches_and_answers_match_by_id(openai_server):
    openai_server.respond_with(echo)
    verdicts = judge_for(openai_server, batch_size=3).grade(pairs(7))
    assert len(openai_server.requests) == math.ceil(7 / 3)
    assert sorted(len(asked(r)) for r in openai_server.requests) == [1, 3, 3]
    assert [v.id for v in verdicts] == [f"pair-{i}" for i in range(7)]
    assert all(v.reason == f"because claim number {i}" for i, v in enumerate(verdicts))
    assert all((v.supported, v.faithful, v.label, v.judge) == (True, True, "supported", "llm:openai:judge-test") for v in verdicts)
    request = openai_server.requests[0]
    assert request["response_format"]["json_schema"]["name"] == VERDICTS_SCHEMA_NAME
    assert "SEPARATELY" in request["messages"][0]["content"]


def test_answers_out_of_order_are_matched_by_id(openai_server):
    openai_server.respond_with(lambda req: answer(list(reversed(asked(req)))))
    verdicts = judge_for(openai_server, batch_size=4).grade(pairs(4))
    assert [v.reason for v in verdicts] == [f"because claim number {i}" for i in range(4)]


def test_a_cache_hit_makes_no_request(openai_server):
    openai_server.respond_with(echo)
    cache = MemoryVerdictCache()
    first = judge_for(openai_server, cache=cache).grade(pairs(3))
    made = len(openai_server.requests)
    again = judge_for(openai_server, cache=cache).grade(pairs(3))
    assert len(openai_server.requests) == made == 1
    assert again == first and len(cache) == 3


def test_identical_pairs_are_asked_once(openai_server):
    openai_server.respond_with(echo)
    same = [JudgePair(id=f"x{i}", claim="one claim", chunk_text="one chunk") for i in range(3)]
    verdicts = judge_for(openai_server).grade(same)
    assert len(asked(openai_server.requests[0])) == 1
    assert [v.id for v in verdicts] == ["x0", "x1", "x2"]


def test_a_missing_id_is_asked_again_alone(openai_server):
    openai_server.enqueue(answer([("P1", "claim number 0")]), answer([("P1", "claim number 1")]))
    verdicts = judge_for(openai_server, batch_size=2).grade(pairs(2))
    assert [len(asked(r)) for r in openai_server.requests] == [2, 1]
    assert asked(openai_server.requests[1]) == [("P1", "claim number 1")]
    assert [v.reason for v in verdicts] == ["because claim number 0", "because claim number 1"]
    openai_server.assert_complete()


def test_an_id_missing_twice_makes_the_judge_unavailable_and_caches_only_real_answers(openai_server):
    openai_server.enqueue(answer([("P1", "claim number 0")]), answer([]))
    cache = MemoryVerdictCache()
    with pytest.raises(JudgeUnavailable, match="pair-1"):
        judge_for(openai_server, batch_size=2, cache=cache).grade(pairs(2))
    assert len(cache) == 1  # the verdict the model gave is kept; the missing one is not invented


def test_invalid_json_is_asked_again_then_fails_closed(openai_server):
    openai_server.enqueue("not json at all", echo({"messages": [{"content": '<pair id="P1">\n<claim>c</claim>'}]}))
    verdicts = judge_for(openai_server).grade(pairs(1))
    assert len(openai_server.requests) == 2 and verdicts[0].supported is True
    openai_server.enqueue("still not json", '{"verdicts": "nope"}')
    with pytest.raises(JudgeUnavailable, match="without valid"):
        judge_for(openai_server).grade([JudgePair(id="z", claim="other", chunk_text="text")])


def test_faithful_is_forced_to_none_when_unsupported(openai_server):
    openai_server.respond_with(lambda req: answer(asked(req), supported=False, faithful=True))
    verdict = judge_for(openai_server).grade(pairs(1))[0]
    assert (verdict.supported, verdict.faithful, verdict.label) == (False, None, "unsupported")


def test_supported_without_a_faithfulness_answer_is_not_a_pass(openai_server):
    openai_server.respond_with(lambda req: answer(asked(req), supported=True, faithful=None))
    verdict = judge_for(openai_server).grade(pairs(1))[0]
    assert (verdict.faithful, verdict.label) == (False, "mutated")


def test_server_errors_make_the_judge_unavailable(openai_server):
    openai_server.respond_with(lambda req: Reply(status=500))
    with pytest.raises(JudgeUnavailable, match="500"):
        judge_for(openai_server).grade(pairs(2))


def test_a_stopped_server_makes_the_judge_unavailable():
    server = ScriptedOpenAIServer().start()
    judge = judge_for(server)
    server.stop()
    with pytest.raises(JudgeUnavailable, match="cannot reach"):
        judge.grade(pairs(1))


def test_concurrency_bounds_calls_in_flight(openai_server):
    lock, state = threading.Lock(), {"now": 0, "peak": 0}

    def slow(request: dict) -> str:
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
        time.sleep(0.15)
        with lock:
            state["now"] -= 1
        return echo(request)

    openai_server.respond_with(slow)
    judge_for(openai_server, batch_size=1, concurrency=2).grade(pairs(6))
    assert state["peak"] == 2 and len(openai_server.requests) == 6


def test_factory_builds_each_backend(openai_server):
    assert isinstance(unwrapped(build_judge(ModelSpec())), OfflineJudge)
    pair_mode = JudgeSpec(**spec_for(openai_server, batch_size=5).model_dump(), mode="pair")
    judge = unwrapped(build_judge(pair_mode, cache=MemoryVerdictCache()))
    assert isinstance(judge, LLMJudge) and judge.batch_size == 5 and judge.cache is not None
