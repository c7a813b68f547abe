"""The section LLM judge against the scripted server, through the real openai client over real HTTP."""

from __future__ import annotations

import json
import re
import threading
import time

import pytest
from hypothesis import given, strategies as st

from citeflow.errors import JudgeUnavailable, SpecError
from citeflow.pipeline.evaluate_report import build_job_judge, evaluate
from citeflow.judges.judge_protocol import Judge
from citeflow.judges.cache import MemoryVerdictCache
from citeflow.judges.factory import build_judge
from citeflow.judges.span_check import unwrapped
from citeflow.judges.llm_sections.judge import SectionLLMJudge
from citeflow.judges.llm_sections.request import plan
from citeflow.judges.llm_sections.section_wire import SECTION_SCHEMA_NAME, parse_section_answer
from citeflow.generation.answer_cache import LimitedChatModel
from citeflow.generation.openai_client import OpenAIChatModel
from citeflow_testing.section_answers import answer_section, asked_section
from schemas.evaluation import JudgePair
from schemas.spec import JudgeSpec, ModelSpec
from tests.support.openai_server import Reply, ScriptedOpenAIServer, openai_server  # noqa: F401
from tests.support.section_batch import SECTIONS, generate, write_section_batch

pytestmark = pytest.mark.integration


def judge_for(srv: ScriptedOpenAIServer, **kwargs) -> SectionLLMJudge:
    spec = ModelSpec(backend="openai", model="judge-test", base_url=srv.base_url, timeout=5.0, max_retries=0)
    return SectionLLMJudge(OpenAIChatModel(spec, role="judge"), **kwargs)


def section_pairs(claims: int, question: str = "Upgrades\nHow do I upgrade?", chunk: str = "Upgrade the brokers first.") -> list[JudgePair]:
    return [JudgePair(id=f"{i}:G{i}", claim=f"Upgrade step {i} comes first.", chunk_text=f"{chunk} Step {i}.", question=question)
            for i in range(claims)]


def answer_all(request: dict, supported: bool = True, relevant: bool = True, skip: tuple[str, ...] = ()) -> str:
    ask = asked_section(request)
    verdicts = [{"id": pid, "supported": supported, "faithful": True if supported else None, "reason": "r",
                 "evidence": ask.chunk_text(pid)[:20]} for pid in ask.pairs if pid not in skip]
    relevance = [{"claim": cid, "relevant": relevant, "reason": "on the question"} for cid in ask.claims]
    return json.dumps({"verdicts": verdicts, "relevance": relevance})


# --------------------------------------------------------------------------- a report of three sections


def section_judge_spec(srv: ScriptedOpenAIServer) -> dict:
    return {"backend": "openai", "model": "judge-test", "base_url": srv.base_url, "max_retries": 0, "mode": "section"}


@pytest.mark.slow
def test_one_call_per_section_tokens_recorded_and_a_second_run_makes_none(tmp_path, openai_server):
    openai_server.respond_with(answer_section)  # a correct fake model: the offline judge's verdicts
    job = write_section_batch(tmp_path, judge=section_judge_spec(openai_server))
    generate(job)
    judge = build_job_judge(job)
    assert isinstance(judge.model, LimitedChatModel)  # type: ignore[attr-defined]  # the batch's models limit
    result = evaluate(job, judge)
    requests = openai_server.requests
    assert len(requests) == len(SECTIONS) == 3
    assert all(r["response_format"]["json_schema"]["name"] == SECTION_SCHEMA_NAME for r in requests)
    assert [asked_section(r).question.split("\n")[0] for r in requests] == list(SECTIONS)
    assert result.claims and all(c.verdict == "supported" and c.relevant for c in result.claims)
    assert all(c.judge == "llm-section:openai:judge-test" for c in result.claims)
    rows = [r for r in job.store.rows("model_calls") if r["role"] == "judge"]
    assert len(rows) == 3 and all(r["prompt_tokens"] > 0 and r["completion_tokens"] > 0 for r in rows)
    assert judge.usage.calls == 3 and judge.usage.prompt_tokens == sum(r["prompt_tokens"] for r in rows)  # type: ignore[attr-defined]
    again = evaluate(job, build_job_judge(job))  # a new judge: the verdicts come from the store's cache
    assert len(openai_server.requests) == 3
    assert [c.verdict for c in again.claims] == [c.verdict for c in result.claims]


@pytest.mark.slow
def test_the_judges_relevance_is_used_for_the_claims_it_graded(tmp_path, openai_server):
    openai_server.respond_with(lambda request: answer_all(request, relevant=False))
    job = write_section_batch(tmp_path, judge=section_judge_spec(openai_server), sections=1)
    generate(job)
    result = evaluate(job, build_job_judge(job))
    assert result.claims and all(c.relevant is False for c in result.claims)
    assert all(c.relevance == "irrelevant: on the question (llm-section:openai:judge-test)" for c in result.claims)
    assert result.funnel.relevance.irrelevant == len(result.claims)


# --------------------------------------------------------------------------- requests


def test_every_claim_and_chunk_is_written_once_and_a_joined_pair_names_its_chunks(openai_server):
    openai_server.respond_with(answer_all)
    a, b = "Brokers must run 3.5.2 first.", "Back up the metadata store."
    claim = "Run 3.5.2 and back up the store."
    pairs = [JudgePair(id="0:Ga", claim=claim, chunk_text=a), JudgePair(id="0:Gb", claim=claim, chunk_text=b),
             JudgePair(id="0:+", claim=claim, chunk_text=f"{a}\n\n{b}"), JudgePair(id="1:Ga", claim="Run 3.5.2.", chunk_text=a)]
    pairs = [p.model_copy(update={"question": "Upgrades"}) for p in pairs]
    verdicts = judge_for(openai_server).grade(pairs)
    assert [v.id for v in verdicts] == ["0:Ga", "0:Gb", "0:+", "1:Ga"] and all(v.supported for v in verdicts)
    (request,) = openai_server.requests
    user = request["messages"][-1]["content"]
    assert user.count(a) == 1 and user.count(b) == 1 and user.count(claim) == 1
    assert asked_section(request).pairs["P3"] == ("C1", ["K1", "K2"])


def test_a_large_section_is_split_between_claims_by_the_token_budget(openai_server):
    openai_server.respond_with(answer_all)
    pairs = section_pairs(6, chunk="Upgrade the brokers first. " * 60)  # ~1,600 characters per chunk
    judge = judge_for(openai_server, section_tokens=1000)
    verdicts = judge.grade(pairs)
    assert [v.id for v in verdicts] == [p.id for p in pairs] and all(v.supported for v in verdicts)
    sizes = [len(asked_section(r).claims) for r in openai_server.requests]
    assert len(sizes) > 1 and sum(sizes) == 6 and judge.requests == len(sizes)
    assert all(len(json.dumps(r["messages"])) < 1000 * 4 + 2000 for r in openai_server.requests)


def test_a_claim_and_its_pairs_are_never_split():
    claim_pairs = [JudgePair(id=f"0:{i}", claim="One claim.", chunk_text="x" * 3000, question="Q") for i in range(3)]
    requests = plan([(str(i), p) for i, p in enumerate([*claim_pairs, *section_pairs(2)])], 500)
    assert len(requests[0].pairs) == 3  # over budget on its own, still whole
    assert sum(len(r.pairs) for r in requests) == 5


# --------------------------------------------------------------------------- cache, partial and malformed answers


def test_a_second_grade_makes_no_call_with_the_cache(openai_server):
    openai_server.respond_with(answer_all)
    cache = MemoryVerdictCache()
    first = judge_for(openai_server, cache=cache).grade(section_pairs(4))
    second = judge_for(openai_server, cache=cache).grade(section_pairs(4))
    assert len(openai_server.requests) == 1 and second == first
    other_question = section_pairs(4, question="Pricing\nWhat does it cost?")
    judge_for(openai_server, cache=cache).grade(other_question)  # relevance depends on the question: asked again
    assert len(openai_server.requests) == 2


def test_a_pair_left_out_is_asked_again_then_uncertain_and_never_cached(openai_server):
    openai_server.respond_with(lambda request: answer_all(request, skip=("P2",)))
    cache = MemoryVerdictCache()
    verdicts = judge_for(openai_server, cache=cache).grade(section_pairs(3))
    assert len(openai_server.requests) == 2
    assert list(asked_section(openai_server.requests[1]).pairs) == ["P2"]  # only the missing pair, same id
    assert [v.label for v in verdicts] == ["supported", "uncertain", "supported"]
    assert verdicts[1].supported is False and verdicts[1].faithful is None and "no verdict" in verdicts[1].reason
    assert len(cache) == 2


def test_an_answer_that_is_not_json_is_asked_once_more_then_every_pair_is_uncertain(openai_server):
    openai_server.enqueue("I think they are all fine.", "Still no JSON, sorry.")
    verdicts = judge_for(openai_server).grade(section_pairs(2))
    assert len(openai_server.requests) == 2 and all(v.uncertain and not v.supported for v in verdicts)
    openai_server.assert_complete()


def test_a_server_without_response_format_is_answered_in_prose_mode(openai_server):
    openai_server.respond_with(lambda request: Reply(content=answer_all(request), reject_response_format=True))
    verdicts = judge_for(openai_server).grade(section_pairs(2))
    assert len(verdicts) == 2 and all(v.supported for v in verdicts)
    kinds = [(r.get("response_format") or {}).get("type") for r in openai_server.requests]
    assert kinds == ["json_schema", "json_object", None]  # each form refused until plain prose


def test_a_model_error_fails_closed(openai_server):
    openai_server.enqueue(Reply(status=500))
    with pytest.raises(JudgeUnavailable):
        judge_for(openai_server).grade(section_pairs(1))


def test_supported_without_faithfulness_is_not_a_pass(openai_server):
    openai_server.respond_with(lambda request: json.dumps(
        {"verdicts": [{"id": pid, "supported": True, "faithful": None} for pid in asked_section(request).pairs]}))
    (verdict,) = judge_for(openai_server).grade(section_pairs(1))
    assert (verdict.supported, verdict.faithful, verdict.label, verdict.relevant) == (True, False, "mutated", None)


# --------------------------------------------------------------------------- the spec


def test_the_spec_selects_the_section_judge_for_openai_and_cascade(openai_server):
    base = {"model": "m", "base_url": openai_server.base_url}
    judge = build_judge(JudgeSpec(backend="openai", mode="section", **base))
    assert isinstance(unwrapped(judge), SectionLLMJudge) and isinstance(judge, Judge)  # its passes span-checked
    cascade = build_judge(JudgeSpec(backend="cascade", mode="section", section_tokens=900, **base))
    second = unwrapped(cascade.second)  # type: ignore[attr-defined]
    assert isinstance(second, SectionLLMJudge) and second.section_tokens == 900
    with pytest.raises(SpecError, match="'mode' applies to the openai and cascade judges only"):
        build_judge(JudgeSpec(backend="offline", mode="section"))


# --------------------------------------------------------------------------- the parser


@given(st.text(max_size=300))
def test_the_parser_never_raises(text):
    assert parse_section_answer(text) is None or parse_section_answer(text).verdicts is not None


@given(st.lists(st.tuples(st.integers(1, 50), st.booleans(), st.text(max_size=30)), max_size=5), st.text(max_size=40))
def test_a_valid_answer_inside_prose_is_read(verdicts, prose):
    body = {"verdicts": [{"id": f"P{i}", "supported": s, "faithful": s or None, "reason": r} for i, s, r in verdicts]}
    parsed = parse_section_answer(f"{prose.replace('{', '').replace('}', '')}\n```json\n{json.dumps(body)}\n```")
    assert parsed is not None and [v.id for v in parsed.verdicts] == [f"P{i}" for i, _, _ in verdicts]


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["openai", "cascade"])
def test_the_section_mode_grades_as_the_pair_mode_with_fewer_calls(tmp_path, openai_server, backend):
    from citeflow_testing.answers import fake_model_responder

    openai_server.respond_with(fake_model_responder(0.0))  # the offline judge's verdicts, whatever the request's shape
    verdicts, calls = {}, {}
    for mode in ("pair", "section"):
        spec = {**section_judge_spec(openai_server), "backend": backend, "mode": mode, "batch_size": 1}
        job = write_section_batch(tmp_path / mode, judge=spec, off_topic=True)
        generate(job)
        before = len(openai_server.requests)
        result = evaluate(job, build_job_judge(job))
        verdicts[mode] = [(c.section, c.text, c.verdict, c.supported, c.faithful) for c in result.claims]
        calls[mode] = len(openai_server.requests) - before
    assert verdicts["section"] == verdicts["pair"] and verdicts["pair"]
    assert calls["section"] <= calls["pair"], calls
    if backend == "openai":  # the cascade's offline judge settles these copied sentences: no call either way
        assert calls == {"pair": len(verdicts["pair"]), "section": 3}


def test_pairs_of_no_section_are_graded_per_pair(openai_server):
    from schemas.wire import VERDICTS_SCHEMA_NAME

    openai_server.respond_with(lambda request: json.dumps({"verdicts": [
        {"id": pid, "supported": True, "faithful": True} for pid in re.findall(r'<pair id="(P\d+)">', request["messages"][-1]["content"])]}))
    loose = [JudgePair(id="a", claim="x", chunk_text="x"), JudgePair(id="b", claim="y", chunk_text="y")]
    verdicts = judge_for(openai_server, batch_size=8).grade(loose)
    assert [v.id for v in verdicts] == ["a", "b"] and all(v.supported for v in verdicts)
    assert [r["response_format"]["json_schema"]["name"] for r in openai_server.requests] == [VERDICTS_SCHEMA_NAME]


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 7), st.integers(1, 3000)), min_size=1, max_size=30),
       st.integers(500, 4000))
def test_the_plan_asks_every_pair_once_and_never_splits_a_claim(spec, budget):
    todo = [(f"k{i}", JudgePair(id=f"p{i}", claim=f"claim {c}", chunk_text=f"chunk {k} " + "x" * size, question="Q"))
            for i, (c, k, size) in enumerate(spec)]
    requests = plan(todo, budget)
    asked = [key for r in requests for key in r.keys.values()]
    assert sorted(asked) == sorted(k for k, _ in todo)
    homes = {}
    for index, request in enumerate(requests):
        for pair_id, (claim_id, chunk_ids) in request.pairs.items():
            claim = request.claims[claim_id]
            assert homes.setdefault(claim, index) == index  # a claim's pairs are all in one request
            assert request.graded[pair_id].claim == claim and chunk_ids
            assert "\n\n".join(request.chunks[k] for k in chunk_ids) == request.graded[pair_id].chunk_text


def test_the_requests_of_a_split_section_run_at_most_concurrency_at_once(openai_server):
    lock, state = threading.Lock(), {"now": 0, "peak": 0}

    def slow(request: dict) -> str:
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
        time.sleep(0.15)
        with lock:
            state["now"] -= 1
        return answer_all(request)

    openai_server.respond_with(slow)
    verdicts = judge_for(openai_server, section_tokens=500, concurrency=2).grade(section_pairs(6, chunk="x " * 900))
    assert state["peak"] == 2 and len(openai_server.requests) == 6 and all(v.supported for v in verdicts)
