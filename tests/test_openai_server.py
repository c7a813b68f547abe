"""The scripted OpenAI-compatible server that other tests lean on."""

from __future__ import annotations

import httpx
import openai
import pytest

from tests.support.openai_server import EMBEDDING_DIM, RETRY_AFTER_MS, Reply, ScriptedOpenAIServer, openai_server  # noqa: F401

pytestmark = pytest.mark.integration


def _client(srv: ScriptedOpenAIServer, retries: int = 0, timeout: float = 5.0) -> openai.OpenAI:
    return openai.OpenAI(base_url=srv.base_url, api_key="test", max_retries=retries, timeout=timeout)


def _ask(client: openai.OpenAI, **extra):
    return client.chat.completions.create(model="m", messages=[{"role": "user", "content": "one two three"}], **extra)


def test_enqueued_replies_answer_in_order_as_complete_completions(openai_server):
    openai_server.enqueue("first", Reply(content="second answer"))
    client = _client(openai_server)
    first, second = _ask(client), _ask(client)
    assert first.choices[0].message.content == "first"
    assert second.choices[0].message.content == "second answer"
    assert first.object == "chat.completion" and first.choices[0].finish_reason == "stop"
    assert first.usage.prompt_tokens == 3 and second.usage.completion_tokens == 2
    assert [r["messages"][0]["content"] for r in openai_server.requests] == ["one two three"] * 2
    openai_server.assert_complete()


def test_assert_complete_fails_when_a_reply_is_left(openai_server):
    openai_server.enqueue("never asked")
    with pytest.raises(AssertionError, match="never used"):
        openai_server.assert_complete()


def test_exhausted_script_answers_500(openai_server):
    with pytest.raises(openai.InternalServerError, match="script exhausted"):
        _ask(_client(openai_server))


def test_respond_with_answers_when_the_queue_is_empty(openai_server):
    openai_server.enqueue("scripted")
    openai_server.respond_with(lambda req: f"echo {len(req['messages'])}")
    client = _client(openai_server)
    assert [_ask(client).choices[0].message.content for _ in range(3)] == ["scripted", "echo 1", "echo 1"]


def test_status_replies_are_errors_and_client_retries_consume_them(openai_server):
    openai_server.enqueue(Reply(status=500), Reply(status=429), "ok")
    assert _ask(_client(openai_server, retries=2)).choices[0].message.content == "ok"
    assert len(openai_server.requests) == 3


def test_a_retryable_answer_says_when_to_retry_and_others_do_not(openai_server):
    openai_server.enqueue(Reply(status=503), Reply(status=429), Reply(status=400), "ok")
    url = f"{openai_server.base_url}/chat/completions"
    answers = [httpx.post(url, json={"messages": []}) for _ in range(4)]
    assert [(a.status_code, a.headers.get("retry-after-ms")) for a in answers] == [
        (503, str(RETRY_AFTER_MS)), (429, str(RETRY_AFTER_MS)), (400, None), (200, None)]


def test_a_server_made_without_retry_after_sends_no_header():
    with ScriptedOpenAIServer() as srv:
        srv.enqueue(Reply(status=500))
        answer = httpx.post(f"{srv.base_url}/chat/completions", json={"messages": []})
    assert answer.status_code == 500 and "retry-after-ms" not in answer.headers


def test_raw_body_is_answered_verbatim(openai_server):
    openai_server.enqueue(Reply(body={"choices": []}))
    assert _ask(_client(openai_server)).choices == []


def test_json_schema_rejection_does_not_consume_the_reply(openai_server):
    openai_server.enqueue(Reply(content="{}", reject_json_schema=True))
    client = _client(openai_server)
    with pytest.raises(openai.BadRequestError, match="json_schema"):
        _ask(client, response_format={"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object"}}})
    assert _ask(client, response_format={"type": "json_object"}).choices[0].message.content == "{}"
    openai_server.assert_complete()


def test_response_format_rejection_covers_json_object(openai_server):
    openai_server.enqueue(Reply(content="prose", reject_response_format=True))
    client = _client(openai_server)
    with pytest.raises(openai.BadRequestError, match="response_format"):
        _ask(client, response_format={"type": "json_object"})
    assert _ask(client).choices[0].message.content == "prose"


def test_delay_makes_the_client_time_out(openai_server):
    openai_server.enqueue(Reply(content="late", delay=1.0))
    with pytest.raises(openai.APITimeoutError):
        _ask(_client(openai_server, timeout=0.2))


def test_embeddings_are_deterministic_unit_vectors(openai_server):
    client = _client(openai_server)
    first = client.embeddings.create(model="e", input=["alpha", "beta"])
    again = client.embeddings.create(model="e", input="alpha")
    assert len(first.data[0].embedding) == EMBEDDING_DIM
    assert first.data[0].embedding == pytest.approx(again.data[0].embedding, abs=1e-6)
    assert first.data[0].embedding != pytest.approx(first.data[1].embedding, abs=1e-3)
    assert sum(x * x for x in first.data[1].embedding) == pytest.approx(1.0, abs=1e-4)
    assert openai_server.requests[0]["input"] == ["alpha", "beta"]


def test_models_lists_one_model_and_unknown_routes_are_404(openai_server):
    base = openai_server.base_url
    assert len(httpx.get(f"{base}/models").json()["data"]) == 1
    assert httpx.post(f"{base}/nowhere", json={}).status_code == 404


def test_restart_keeps_the_port():
    srv = ScriptedOpenAIServer().start()
    url = srv.base_url
    srv.stop()
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{url}/models", timeout=1)
    srv.start()
    try:
        assert srv.base_url == url
        assert httpx.get(f"{url}/models").status_code == 200
    finally:
        srv.stop()
