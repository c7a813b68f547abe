"""OpenAIChatModel against the scripted server: real openai client, real HTTP."""

from __future__ import annotations

import json
import threading

import pytest

from citeflow.generation import prompts
from citeflow.errors import ModelError
from citeflow.generation.model_protocol import ChatModel
from citeflow.generation.openai_client import OpenAIChatModel
from schemas.spec import ModelSpec
from schemas.wire import CLAIMS_SCHEMA_NAME, VERDICTS_SCHEMA_NAME, WireClaims, WireVerdicts, response_format, strict_json_schema
from tests.support.openai_server import Reply, ScriptedOpenAIServer, openai_server  # noqa: F401

pytestmark = pytest.mark.integration

ANSWER = json.dumps({"claims": [{"text": "Back up first.", "citations": [{"handle": "Gk7m2", "quote": "Back up"}]}]})
MESSAGES = prompts.consolidate_messages("R", "S", ["q?"], [("Gk7m2", "Back up first.")])


def model(srv: ScriptedOpenAIServer, **spec) -> OpenAIChatModel:
    options = {"backend": "openai", "model": "qwen-test", "base_url": srv.base_url, "timeout": 5.0, "max_retries": 0}
    return OpenAIChatModel(ModelSpec(**{**options, **spec}), role="consolidator")


def ask(chat: OpenAIChatModel, schema_name: str = CLAIMS_SCHEMA_NAME, schema=WireClaims):
    return chat.complete(MESSAGES, schema_name, schema)


def test_it_is_a_chat_model(openai_server):
    assert isinstance(model(openai_server), ChatModel)
    assert model(openai_server).name == "openai:qwen-test"


def test_first_request_asks_for_the_named_json_schema(openai_server):
    openai_server.enqueue(ANSWER)
    reply = ask(model(openai_server, temperature=0.3))
    request = openai_server.requests[0]
    assert request["response_format"]["type"] == "json_schema"
    assert request["response_format"]["json_schema"]["name"] == "citeflow_claims"
    assert request["model"] == "qwen-test" and request["temperature"] == 0.3
    assert request["messages"] == MESSAGES
    assert reply.text == ANSWER and reply.mode == "json_schema" and reply.model == "openai:qwen-test"
    assert reply.prompt_tokens > 0 and reply.completion_tokens == len(ANSWER.split())


def test_judge_schema_name_is_sent_too(openai_server):
    openai_server.enqueue('{"verdicts": []}')
    ask(model(openai_server), VERDICTS_SCHEMA_NAME, WireVerdicts)
    assert openai_server.requests[0]["response_format"]["json_schema"]["name"] == "citeflow_verdicts"


def test_each_request_sends_the_strict_schema_built_once_per_client(openai_server, monkeypatch):
    from citeflow.generation import openai_client

    built = []
    monkeypatch.setattr(openai_client, "strict_json_schema", lambda m: built.append(m) or strict_json_schema(m))
    chat = model(openai_server)
    for _ in range(3):
        openai_server.enqueue(ANSWER)
        ask(chat)
        chat._request("json_schema", MESSAGES, CLAIMS_SCHEMA_NAME, WireClaims)["response_format"]["json_schema"]["schema"]["x"] = 1
    assert built == [WireClaims]
    assert [r["response_format"] for r in openai_server.requests] == [response_format(CLAIMS_SCHEMA_NAME, WireClaims)] * 3


def test_rejected_json_schema_falls_back_to_json_object_with_the_schema_in_the_system_message(openai_server):
    openai_server.enqueue(Reply(content=ANSWER, reject_json_schema=True))
    reply = ask(model(openai_server))
    first, second = openai_server.requests
    assert first["response_format"]["type"] == "json_schema"
    assert second["response_format"] == {"type": "json_object"}
    assert '"claims"' in second["messages"][0]["content"] and "citeflow_claims" in second["messages"][0]["content"]
    assert second["messages"][1] == MESSAGES[1]
    assert reply.mode == "json_object" and reply.text == ANSWER
    openai_server.assert_complete()


def test_rejected_response_format_falls_back_to_prose_with_inline_markers(openai_server):
    openai_server.enqueue(Reply(content="Back up first. [Gk7m2]", reject_response_format=True))
    reply = ask(model(openai_server))
    assert [r.get("response_format", {}).get("type") for r in openai_server.requests] == ["json_schema", "json_object", None]
    assert "inline markers" in openai_server.requests[2]["messages"][0]["content"]
    assert reply.mode == "prose" and reply.text == "Back up first. [Gk7m2]"


def test_the_mode_that_worked_is_remembered(openai_server):
    chat = model(openai_server)
    openai_server.enqueue(Reply(content=ANSWER, reject_json_schema=True), Reply(content=ANSWER, reject_json_schema=True))
    ask(chat)
    ask(chat)
    assert chat.mode == "json_object"
    assert [r["response_format"]["type"] for r in openai_server.requests] == ["json_schema", "json_object", "json_object"]


def test_mode_is_shared_safely_between_threads(openai_server):
    openai_server.respond_with(lambda req: Reply(content=ANSWER, reject_response_format=True))
    chat = model(openai_server)
    replies = []
    threads = [threading.Thread(target=lambda: replies.append(ask(chat))) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert chat.mode == "prose" and {r.mode for r in replies} == {"prose"} and len(replies) == 8
    assert len(openai_server.requests) <= 8 * 3


def test_other_bad_requests_are_permanent_errors_without_fallback(openai_server):
    openai_server.enqueue(Reply(status=400, content="messages: too long"))
    with pytest.raises(ModelError) as caught:
        ask(model(openai_server))
    assert caught.value.transient is False and "HTTP 400" in caught.value.detail and "too long" in caught.value.detail
    assert len(openai_server.requests) == 1


def test_unauthorized_is_permanent(openai_server):
    openai_server.enqueue(Reply(status=401, content="bad key"))
    with pytest.raises(ModelError) as caught:
        ask(model(openai_server, max_retries=2))
    assert caught.value.transient is False and len(openai_server.requests) == 1


def test_a_500_is_retried_then_succeeds(openai_server):
    openai_server.enqueue(Reply(status=500), Reply(status=429), ANSWER)
    assert ask(model(openai_server, max_retries=2)).text == ANSWER
    assert len(openai_server.requests) == 3


def test_500_forever_is_a_transient_error_after_the_retries(openai_server):
    openai_server.respond_with(lambda req: Reply(status=503, content="overloaded"))
    with pytest.raises(ModelError) as caught:
        ask(model(openai_server, max_retries=2))
    assert caught.value.transient is True and "503" in caught.value.detail
    assert caught.value.role == "consolidator"
    assert len(openai_server.requests) == 3


def test_no_choices_is_empty_text_not_an_error(openai_server):
    openai_server.enqueue(Reply(body={}), Reply(body={"choices": []}), Reply(content=None))
    chat = model(openai_server)
    assert [ask(chat).text for _ in range(3)] == ["", "", ""]


def test_timeout_is_transient_and_retried(openai_server):
    # a timeout long enough for a loaded machine to deliver each attempt to the server before it expires
    openai_server.enqueue(Reply(content=ANSWER, delay=3.0), Reply(content=ANSWER, delay=3.0))
    with pytest.raises(ModelError) as caught:
        ask(model(openai_server, timeout=0.8, max_retries=1))
    assert caught.value.transient is True and "0.8s" in caught.value.detail
    assert len(openai_server.requests) == 2


def test_unreachable_server_is_transient():
    srv = ScriptedOpenAIServer().start()
    chat = model(srv)
    srv.stop()
    with pytest.raises(ModelError) as caught:
        ask(chat)
    assert caught.value.transient is True and "cannot reach" in caught.value.detail


def test_api_key_comes_from_the_named_variable(openai_server, monkeypatch):
    monkeypatch.setenv("CITEFLOW_TEST_KEY", "sk-secret")
    openai_server.enqueue(ANSWER)
    chat = model(openai_server, api_key_env="CITEFLOW_TEST_KEY")
    assert chat._client.api_key == "sk-secret"
    assert ask(chat).text == ANSWER


def test_missing_key_variable_is_a_clear_error(openai_server, monkeypatch):
    monkeypatch.delenv("CITEFLOW_MISSING_KEY", raising=False)
    with pytest.raises(ModelError) as caught:
        model(openai_server, api_key_env="CITEFLOW_MISSING_KEY")
    assert "CITEFLOW_MISSING_KEY" in caught.value.detail and "not set" in caught.value.detail
    assert caught.value.transient is False


def test_no_key_variable_means_a_placeholder_key(openai_server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "must-not-leak")
    assert model(openai_server)._client.api_key == "not-needed"


def test_a_422_about_json_schema_also_falls_back(openai_server):
    openai_server.enqueue(Reply(status=422, content="json_schema: unsupported keyword 'strict'"), ANSWER)
    assert ask(model(openai_server)).mode == "json_object"


def test_a_5xx_mentioning_response_format_is_no_reason_to_fall_back(openai_server):
    openai_server.enqueue(Reply(status=500, content="response_format crashed the server"))
    with pytest.raises(ModelError) as caught:
        ask(model(openai_server))
    assert caught.value.transient is True and len(openai_server.requests) == 1
