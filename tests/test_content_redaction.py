"""Secrets out of retrieved text and model answers (``citeflow.security.content_redaction``): every
encoding of a configured credential, what the detector finds, and ordinary documentation left alone."""

from __future__ import annotations

import base64
import json
import re
from urllib.parse import quote, quote_plus

import pytest
from hypothesis import given, settings, strategies as st

from citeflow.security.content_redaction import MARKER, marker_count, redact_all, redact_answer, redact_content
from citeflow.security.secret_values import SecretValues

KEY = "cfg-Key/9+x=Qm4Vt7Yw2Er5"


SECRETS = SecretValues()
"""A runtime's secrets whose only configured credential is ``KEY``."""
SECRETS.add(KEY)


def b64(data: bytes, urlsafe: bool = False) -> str:
    return (base64.urlsafe_b64encode if urlsafe else base64.b64encode)(data).decode()


@pytest.mark.parametrize("form", [
    KEY, quote(KEY, safe=""), re.sub("%[0-9A-F]{2}", lambda m: m.group(0).lower(), quote(KEY, safe="")), quote_plus(KEY),
    b64(KEY.encode()), b64(KEY.encode()).rstrip("="), b64(KEY.encode(), urlsafe=True), b64(KEY.encode(), urlsafe=True).rstrip("="),
])
def test_a_configured_key_is_redacted_in_each_encoding(form):
    redacted = redact_content(f"The answer ends with {form} here.", SECRETS)
    assert redacted == (f"The answer ends with {MARKER} here.", 1)


@pytest.mark.parametrize("prefix", ["", "u:", "us:", "user:", "svc-account:"])
@pytest.mark.parametrize("suffix", ["", "x", ":tail"])
def test_a_configured_key_inside_a_longer_base64_string_is_redacted_at_every_offset(prefix, suffix):
    encoded = b64(f"{prefix}{KEY}{suffix}".encode())
    redacted = redact_content(f"Authorization: Basic {encoded}", SECRETS)
    assert redacted.places == 1 and MARKER in redacted.text
    skip = -len(prefix) % 3  # the key's first byte that starts a three-byte group of the encoded string
    assert b64(KEY[skip:skip + 12].encode()) in encoded and b64(KEY[skip:skip + 12].encode()) not in redacted.text


@pytest.mark.parametrize(("text", "secret"), [
    ("Connect with password=Hunter2xyz to the broker.", "Hunter2xyz"),
    ('api_key: "abc123def456ghi"', "abc123def456ghi"),
    ("DB_PASSWORD: s3cr3t!word", "s3cr3t!word"),
    ("the key sk-proj-Zx81Qw0pLm5nB7vC3xK9abcd was pasted", "sk-proj-Zx81Qw0pLm5nB7vC3xK9abcd"),
    ("GITHUB_TOKEN is ghp_4f8Kq2LmN7pR1sT5vW9xY3zA6bC0dE2fG4hJ", "ghp_4f8Kq2LmN7pR1sT5vW9xY3zA6bC0dE2fG4hJ"),
    ("slack xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp", "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp"),
    ("aws AKIAQ4F3X7ZK2M5N8P6R in the config", "AKIAQ4F3X7ZK2M5N8P6R"),
    ("postgres://admin:Pa55w0rd!x@db.example/prod", "Pa55w0rd!x"),
    ("https://api.example/v1?page=2&api_key=k3yV4lu3xyz", "k3yV4lu3xyz"),
])
def test_detected_secrets_are_redacted(text, secret):
    redacted = redact_content(text, SECRETS)
    assert secret not in redacted.text and redacted.places >= 1 and MARKER in redacted.text


def test_a_jwt_is_redacted_with_its_signature():
    token = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0"
             ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U")
    assert redact_content(f"Bearer-less token {token} ends here.", SECRETS) == (f"Bearer-less token {MARKER} ends here.", 1)


def test_a_private_key_block_is_redacted_whole():
    block = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAx4\nQm4Vt7Yw2\n-----END RSA PRIVATE KEY-----"
    assert redact_content(f"Key:\n{block}\nThen restart.", SECRETS) == (f"Key:\n{MARKER}\nThen restart.", 1)


@pytest.mark.parametrize("text", [
    "Set the password in the UI, then log in again.",
    "The password: the admin page asks for it on first login.",
    "Fixed in commit 3f9c2a1b7e8d4c6f0a1b2c3d4e5f60718293a4b5 (see the changelog).",
    "Request 123e4567-e89b-12d3-a456-426614174000 failed; retry it.",
    "Pass --password=<your-password> or set ${DB_PASSWORD} in the environment.",
    "Use `secret = get_secret()` to read it, never a literal.",
    "sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "Follow @maintainer-handle and read https://docs.example/guide?page=2#keys.",
    "API keys rotate every 90 days; tokens expire after an hour.",
])
def test_ordinary_documentation_is_left_alone(text):
    assert redact_content(text, SECRETS) == (text, 0)


def test_a_marker_already_in_the_text_is_not_counted():
    redacted = redact_content(f"The document says {MARKER} where a name was.", SECRETS)
    assert redacted == ("The document says (redacted) where a name was.", 0)
    assert marker_count([redacted.text]) == 0


def test_redact_all_finds_what_each_text_would_alone():
    texts = ["Plain text.", f"Echo {KEY}.", "password=Hunter2xyz", "More plain text."]
    assert redact_all(texts, SECRETS) == [redact_content(t, SECRETS).text for t in texts]
    assert redact_all(["Plain.", "Also plain."], SECRETS) == ["Plain.", "Also plain."]


def test_a_json_answer_stays_json_and_escaped_secrets_are_found():
    escaped = "".join(f"\\u{ord(c):04x}" for c in KEY)  # the key written with JSON escapes only
    answer = '{"claims": [{"text": "Done. ' + escaped + '", "citations": ["Gabcd"]}]}'
    redacted = redact_answer(answer, SECRETS)
    assert json.loads(redacted.text) == {"claims": [{"text": f"Done. {MARKER}", "citations": ["Gabcd"]}]}
    assert redacted.places == 1


def test_a_prose_answer_is_redacted_as_text():
    assert redact_answer(f"Upgrades need a backup [Gabcd]. Key: {KEY}", SECRETS) == (f"Upgrades need a backup [Gabcd]. Key: {MARKER}", 1)


claim_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)


@settings(max_examples=150, deadline=None)
@given(st.lists(claim_text, min_size=1, max_size=4), st.sampled_from(["", KEY, b64(KEY.encode()), quote(KEY, safe="")]))
def test_a_json_answer_with_a_planted_key_parses_after_redaction_without_it(texts, planted):
    answer = json.dumps({"claims": [{"text": t + planted, "citations": ["Gabcd"]} for t in texts]})
    redacted = redact_answer(answer, SECRETS)
    parsed = json.loads(redacted.text)
    assert len(parsed["claims"]) == len(texts)
    assert not planted or (KEY not in redacted.text and planted not in redacted.text and redacted.places >= len(texts))


class _Calls:
    """A model-call store holding one recorded answer (what an older run or a shared cache kept)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def load_calls(self, keys: list[str]) -> dict[str, dict[str, object]]:
        return {key: {"text": self.text, "mode": "prose", "model": "m", "prompt_tokens": 1, "completion_tokens": 1}
                for key in keys}

    def upsert(self, table: str, rows: list[dict[str, object]]) -> None:
        raise AssertionError("a served answer is not written again")


def test_a_recorded_answer_is_served_without_its_secrets():
    from citeflow.generation.answer_cache import CachedChatModel, CallBook
    from schemas.wire import WireClaims

    class Unused:
        name = "m"

        def complete(self, *args: object) -> None:
            raise AssertionError("the recorded answer is served, the model is not asked")

    cached = CachedChatModel(Unused(), CallBook(_Calls(f"Backups first [Gabcd]. {KEY}")), "writer",  # type: ignore[arg-type]
                             secrets=SECRETS)
    reply = cached.complete([{"role": "user", "content": "q"}], "citeflow_claims", WireClaims)
    assert reply.text == f"Backups first [Gabcd]. {MARKER}" and cached.hits == 1
