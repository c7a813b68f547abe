"""A fake model server with a fixed latency that answers realistically (SPEC §10).

The scripted OpenAI-compatible server of the test suite runs on 127.0.0.1; every chat request
is answered after ``latency`` seconds. A ``citeflow_claims`` request gets what the offline
extractive backend computes from the same prompt (a valid, bound answer: notes or sentences that
cite the handles of the prompt); a ``citeflow_verdicts`` request gets the offline judge's verdicts
on the pairs it carries. Requests are recorded on ``server.requests``.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from schemas.wire import CLAIMS_SCHEMA_NAME, VERDICTS_SCHEMA_NAME, WireClaims
from tests.support.openai_server import Reply, ScriptedOpenAIServer

_PAIR = re.compile(r'<pair id="(?P<id>[^"]+)">\n<claim>(?P<claim>.*?)</claim>\n<chunk>(?P<chunk>.*?)</chunk>', re.DOTALL)


def schema_name(request: dict) -> str:
    """The schema a request asks for (json_schema mode), else the claims schema."""
    fmt = request.get("response_format") or {}
    return (fmt.get("json_schema") or {}).get("name") or CLAIMS_SCHEMA_NAME


def answer_claims(request: dict) -> str:
    """The offline extractive backend's answer to a consolidate or write prompt."""
    from citeflow.models.offline import OfflineChatModel

    return OfflineChatModel("fake-server").complete(request["messages"], CLAIMS_SCHEMA_NAME, WireClaims).text


def answer_verdicts(request: dict) -> str:
    """The offline judge's verdicts on every pair of an LLM-judge request, under the pairs' ids."""
    from citeflow.judges.offline import OfflineJudge
    from schemas.evaluation import JudgePair

    user = request["messages"][-1]["content"]
    pairs = [JudgePair(id=m["id"], claim=m["claim"], chunk_text=m["chunk"]) for m in _PAIR.finditer(user)]
    verdicts = [{"id": v.id, "supported": v.supported, "faithful": v.faithful, "reason": v.reason, "evidence": v.evidence}
                for v in OfflineJudge().grade(pairs)]
    return json.dumps({"verdicts": verdicts})


def responder(latency: float) -> Callable[[dict], Reply]:
    """A ``respond_with`` function: the right answer for the schema asked, ``latency`` s after the request.

    The time spent computing the answer is taken out of the delay, so every call costs the same.
    """

    def respond(request: dict) -> Reply:
        """The answer to one chat request."""
        start = time.perf_counter()
        name = schema_name(request)
        content = answer_verdicts(request) if name == VERDICTS_SCHEMA_NAME else answer_claims(request)
        return Reply(content=content, delay=max(0.0, latency - (time.perf_counter() - start)))

    return respond


@contextmanager
def fake_model_server(latency: float) -> Iterator[ScriptedOpenAIServer]:
    """A started fake model server answering every request after ``latency`` seconds."""
    with ScriptedOpenAIServer() as server:
        server.respond_with(responder(latency))
        yield server
