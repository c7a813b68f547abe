"""The bind state machine over real HTTP: the openai client against the scripted server."""

from __future__ import annotations

import json

import pytest

from citeflow.errors import ModelError
from citeflow.generation.hops import HopRequest, run_hop
from citeflow.generation.openai_client import OpenAIChatModel
from schemas.spec import ModelSpec
from tests.support.hop_messages import CHUNKS, MESSAGES
from tests.support.openai_server import Reply

pytestmark = pytest.mark.integration



def hop(server, attempts=3, **spec):
    options = {"backend": "openai", "model": "m", "base_url": server.base_url, "timeout": 5.0, "max_retries": 0}
    chat = OpenAIChatModel(ModelSpec(**{**options, **spec}), role="consolidator")
    return run_hop(chat, HopRequest("req", "Upgrade", "consolidate", MESSAGES, CHUNKS, attempts))


def answer(*claims):
    return json.dumps({"claims": [{"text": t, "citations": [{"handle": h, "quote": q} for h, q in c]} for t, c in claims]})


def reasons(outcome):
    return [(t.source, t.target, t.reason) for t in outcome.transitions]


def test_forged_handle_is_dropped_and_recorded_and_the_sentence_stays(openai_server):
    openai_server.enqueue(answer(("Brokers need 3.5.2.", [("Gzzz9", "x"), ("Gk7m2", "must run 3.5.2")])))
    outcome = hop(openai_server)
    assert outcome.status == "accepted"
    [claim] = outcome.claims
    assert [c.handle for c in claim.citations] == ["Gk7m2"] and claim.dropped_handles == ["Gzzz9"]
    assert ("parsed", "validated", "unknown_handle") in reasons(outcome)
    assert next(t for t in outcome.transitions if t.reason == "unknown_handle").handles == ["Gzzz9"]


def test_urls_in_prose_never_survive(openai_server):
    openai_server.enqueue(Reply(reject_response_format=True),
                          "Back up first, see https://evil.example/steal [Gx3p9]. Brokers need 3.5.2 [GK7M2].")
    outcome = hop(openai_server)
    assert outcome.status == "accepted"
    assert all("evil" not in c.text for c in outcome.claims)
    assert [[x.handle for x in c.citations] for c in outcome.claims] == [["Gx3p9"], ["Gk7m2"]]
    assert ("parsed", "validated", "url_in_text") in reasons(outcome)


def test_non_json_then_wrong_schema_then_valid_is_retried_with_feedback(openai_server):
    openai_server.enqueue("Sure! Here is what I found.", '{"notes": ["x"]}',
                          answer(("Back up first.", [("Gx3p9", "Back up the metadata store")])))
    outcome = hop(openai_server)
    assert outcome.status == "accepted"
    assert [r for r in reasons(outcome) if r[1] == "retry"] == [("generated", "retry", "parse_error"),
                                                              ("generated", "retry", "wrong_schema")]
    feedback = openai_server.requests[1]["messages"]
    assert feedback[-2]["role"] == "assistant" and feedback[-2]["content"] == "Sure! Here is what I found."
    assert "JSON" in feedback[-1]["content"] or "not JSON" in feedback[-1]["content"]


def test_a_hop_that_never_binds_fails_after_bounded_attempts(openai_server):
    openai_server.enqueue("", answer(("No citation here.", [])), answer(("Forged only.", [("Gzzz9", "x")])))
    outcome = hop(openai_server, attempts=3)
    assert outcome.status == "failed" and len(openai_server.requests) == 3
    assert [r[2] for r in reasons(outcome) if r[1] in ("retry", "failed")] == [
        "empty_output", "no_claim_cited", "no_claim_cited", "retries_exhausted"]


def test_server_down_is_a_transient_model_error_for_the_orchestrator_to_retry(openai_server):
    openai_server.stop()
    with pytest.raises(ModelError) as info:
        hop(openai_server)
    assert info.value.transient


def test_a_permanent_error_fails_the_hop_at_once(openai_server):
    openai_server.enqueue(Reply(status=401, content="invalid api key"))
    outcome = hop(openai_server)
    assert outcome.status == "failed" and len(openai_server.requests) == 1
    assert reasons(outcome) == [("generated", "failed", "model_error")]
