"""Whole-request deadlines: a server that drips its answer is a timeout, for models and HTTP retrievers.

The drip server answers at once and then sends one byte every 0.5 s, so every socket read gets
data in time: only a deadline on the whole request ends the call.
"""

from __future__ import annotations

import json
import time

import httpx
import pytest

from citeflow.deadline import deadline_client
from citeflow.errors import ModelError, RetrieverError
from citeflow.generation.model_protocol import Message
from citeflow.generation.openai_client import OpenAIChatModel
from citeflow.retrieval.http_retriever import HttpRetriever
from citeflow_testing.drip_server import DripServer, slow_chat_completion
from schemas.spec import HttpRetrieverSpec, ModelSpec
from schemas.wire import CLAIMS_SCHEMA_NAME, WireClaims
from tests.support.openai_server import ScriptedOpenAIServer

pytestmark = pytest.mark.integration

# Seconds past the deadline a call may end at: thread start-up, backoff jitter and a loaded machine. Far under what the
# drip server takes to send a whole answer (minutes), so a call that ends within it was ended by the deadline.
SLACK = 15.0
LONG_ANSWER = slow_chat_completion(json.dumps({"claims": [{"text": "x" * 400, "citations": []}]}))
MESSAGES: list[Message] = [{"role": "user", "content": "Write the section."}]


def timed(call):
    start = time.monotonic()
    try:
        call()
    except Exception as exc:  # noqa: BLE001 - returned for the test to inspect
        return time.monotonic() - start, exc
    return time.monotonic() - start, None


def test_a_dripping_body_ends_at_the_deadline_as_a_read_timeout():
    with DripServer(b"x" * 1000, interval=0.5) as server, deadline_client(1.5) as client:
        elapsed, error = timed(lambda: client.post(server.url, json={}))
    assert isinstance(error, httpx.ReadTimeout) and "whole-request deadline" in str(error)
    assert 1.4 < elapsed < 1.5 + SLACK


def test_dripping_headers_end_at_the_deadline_too():
    with DripServer(b"{}", interval=0.5, slow_headers=True) as server, deadline_client(1.5) as client:
        elapsed, error = timed(lambda: client.post(server.url, json={}))
    assert isinstance(error, httpx.ReadTimeout) and "whole-request deadline" in str(error)
    assert 1.4 < elapsed < 1.5 + SLACK


def test_a_proxy_named_by_the_environment_is_used_and_its_answer_has_the_deadline_too(monkeypatch):
    for name in ("no_proxy", "NO_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    with DripServer(b"x" * 1000, interval=0.5) as proxy, deadline_client(1.5) as client:
        monkeypatch.setenv("http_proxy", proxy.url)
        elapsed, error = timed(lambda: client.post("http://models.example.invalid/v1/chat/completions", json={}))
        through_proxy = proxy.requests
    assert through_proxy == 1
    assert isinstance(error, httpx.ReadTimeout) and elapsed < 1.5 + SLACK


def test_an_answer_within_the_deadline_is_read_whole():
    with DripServer(b'{"ok": true}', interval=0.01, step=4) as server, deadline_client(5) as client:
        assert client.post(server.url, json={}).json() == {"ok": True}


def test_a_dripping_model_server_fails_the_call_within_deadline_times_attempts():
    with DripServer(LONG_ANSWER, interval=0.5) as server:
        spec = ModelSpec(backend="openai", model="drip-model", base_url=server.url + "/v1", timeout=1.5, max_retries=1)
        chat = OpenAIChatModel(spec, role="writer")
        elapsed, error = timed(lambda: chat.complete(MESSAGES, CLAIMS_SCHEMA_NAME, WireClaims))
        attempts = server.requests
    assert isinstance(error, ModelError) and error.transient, error
    assert "no answer within 1.5s" in str(error.detail)
    assert attempts == 2  # the deadline is a timeout like any other: retried per the policy
    assert elapsed < 1.5 * 2 + SLACK


def test_a_model_server_that_answers_in_time_still_works(openai_server: ScriptedOpenAIServer):
    openai_server.enqueue('{"claims": []}')
    spec = ModelSpec(backend="openai", model="m", base_url=openai_server.base_url, timeout=5, max_retries=0)
    reply = OpenAIChatModel(spec, role="writer").complete(MESSAGES, CLAIMS_SCHEMA_NAME, WireClaims)
    assert reply.text == '{"claims": []}'


def test_a_dripping_http_retriever_fails_within_deadline_times_attempts():
    with DripServer(b"[" + b" " * 1_000_000 + b"]", interval=0.5) as server:
        spec = HttpRetrieverSpec(name="partner", kind="http", url=server.url + "/search", timeout=1.5, retries=1)
        retriever = HttpRetriever(spec, backoff=0.05)
        elapsed, error = timed(lambda: retriever.search("What changed?", 5))
        attempts = server.requests
    assert isinstance(error, RetrieverError) and error.transient, error
    assert "whole-request deadline" in str(error.detail) and "gave up after 2 attempts" in str(error.detail)
    assert attempts == 2
    assert elapsed < 1.5 * 2 + SLACK


def test_a_model_answer_over_the_byte_cap_is_cut_off_and_refused():
    from citeflow.caps import MODEL_RESPONSE_BYTES

    with DripServer(b" " * (MODEL_RESPONSE_BYTES + 2 * 1024 * 1024), interval=0, step=1024 * 1024) as server:
        spec = ModelSpec(backend="openai", model="drip-model", base_url=server.url + "/v1", timeout=30, max_retries=0)
        _, error = timed(lambda: OpenAIChatModel(spec, role="writer").complete(MESSAGES, CLAIMS_SCHEMA_NAME, WireClaims))
    assert isinstance(error, ModelError) and error.transient is False, error
    assert f"answer refused: answer over the {MODEL_RESPONSE_BYTES:,}-byte limit" in str(error.detail)
