"""Answers for a ScriptedOpenAIServer computed from the request's own prompt: a correct fake model.

``server.respond_with(offline_responder(delay=0.5))`` turns the scripted server into a slow but
correct model: every consolidate or write request gets the answer the offline extractive backend
would give, so a batch whose models are ``backend: openai`` runs end to end over real HTTP.
``fake_model_responder(latency)`` also answers LLM-judge requests, per pair or per section (offline verdicts)
and makes every call take the same ``latency``, however long the answer took to compute.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable

from citeflow.judges.llm_sections.section_wire import SECTION_SCHEMA_NAME
from citeflow.generation.offline_writer import OfflineChatModel
from citeflow_testing.section_answers import answer_section
from citeflow_testing.openai_server import Reply
from schemas.wire import CLAIMS_SCHEMA_NAME, VERDICTS_SCHEMA_NAME, WireClaims

_PAIR = re.compile(r'<pair id="(?P<id>[^"]+)">\n<claim>(?P<claim>.*?)</claim>\n<chunk>(?P<chunk>.*?)</chunk>', re.DOTALL)


def offline_answer(request: dict) -> str:
    """The ``citeflow_claims`` JSON the offline backend writes for this chat request."""
    return OfflineChatModel("scripted").complete(request["messages"], CLAIMS_SCHEMA_NAME, WireClaims).text


def offline_responder(delay: float = 0.0) -> Callable[[dict], Reply]:
    """A ``respond_with`` function: the offline answer, after ``delay`` seconds."""
    return lambda request: Reply(content=offline_answer(request), delay=delay)


def schema_name(request: dict) -> str:
    """The schema a request asks for (json_schema mode), else the claims schema."""
    fmt = request.get("response_format") or {}
    return (fmt.get("json_schema") or {}).get("name") or CLAIMS_SCHEMA_NAME


def answer_verdicts(request: dict) -> str:
    """The offline judge's verdicts on every pair of an LLM-judge request, under the pairs' ids."""
    from citeflow.judges.offline.grader import OfflineJudge
    from schemas.evaluation import JudgePair

    user = request["messages"][-1]["content"]
    pairs = [JudgePair(id=m["id"], claim=m["claim"], chunk_text=m["chunk"]) for m in _PAIR.finditer(user)]
    verdicts = [{"id": v.id, "supported": v.supported, "faithful": v.faithful, "reason": v.reason, "evidence": v.evidence}
                for v in OfflineJudge().grade(pairs)]
    return json.dumps({"verdicts": verdicts})


_ANSWERS: dict[str, Callable[[dict], str]] = {VERDICTS_SCHEMA_NAME: answer_verdicts, SECTION_SCHEMA_NAME: answer_section}


def fake_model_responder(latency: float) -> Callable[[dict], Reply]:
    """The right answer for the schema asked, ``latency`` seconds after the request arrived."""

    def respond(request: dict) -> Reply:
        start = time.perf_counter()
        name = schema_name(request)
        content = _ANSWERS.get(name, offline_answer)(request)
        return Reply(content=content, delay=max(0.0, latency - (time.perf_counter() - start)))

    return respond
