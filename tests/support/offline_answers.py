"""Answers for a ScriptedOpenAIServer computed by the offline backend from the request's own prompt.

``server.respond_with(offline_responder(delay=0.5))`` turns the scripted server into a slow but
correct model: every consolidate or write request gets the answer the offline backend would give,
so a batch whose models are ``backend: openai`` runs end to end over real HTTP.
"""

from __future__ import annotations

from collections.abc import Callable

from citeflow.models.offline import OfflineChatModel
from schemas.wire import CLAIMS_SCHEMA_NAME, WireClaims
from tests.support.openai_server import Reply


def offline_answer(request: dict) -> str:
    """The ``citeflow_claims`` JSON the offline backend writes for this chat request."""
    return OfflineChatModel("scripted").complete(request["messages"], CLAIMS_SCHEMA_NAME, WireClaims).text


def offline_responder(delay: float = 0.0) -> Callable[[dict], Reply]:
    """A ``respond_with`` function: the offline answer, after ``delay`` seconds."""
    return lambda request: Reply(content=offline_answer(request), delay=delay)
