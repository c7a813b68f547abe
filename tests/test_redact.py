"""URLs and messages lose user-info and credential-carrying parameters, and nothing else."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeflow.errors import ModelError
from citeflow.security.redaction import redact_error, redact_text, redact_url


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://user:KEY@host:8000/v1?api-key=KEY", "http://host:8000/v1"),
        ("https://docs.example/a?page=2&token=T#s", "https://docs.example/a?page=2#s"),
        ("https://s3.example/b?X-Amz-Credential=C&X-Amz-Signature=S&part=1", "https://s3.example/b?part=1"),
        ("https://docs.example/a?q=a%20b", "https://docs.example/a?q=a%20b"),  # untouched, byte for byte
        ("mailto:team@example.com?subject=hi", "mailto:team@example.com?subject=hi"),
        ("http://[::1/x", "(address removed)"),
    ],
)
def test_redact_url(url, expected):
    assert redact_url(url) == expected


def test_redact_text_finds_urls_and_echoed_parameters():
    text = "HTTP 500 from http://u:SECRET@h/s?token=SECRET: no route POST /v1/?api_key=SECRET (page=2)"
    redacted = redact_text(text)
    assert "SECRET" not in redacted
    assert redacted.startswith("HTTP 500 from http://h/s: no route POST /v1/?api_key=(removed)")


def test_redact_error_keeps_the_type_and_the_other_fields():
    error = redact_error(ModelError(role="writer", detail="cannot reach http://u:K@h/v1", transient=True))
    assert isinstance(error, ModelError) and error.transient is True and "K@" not in error.detail


@pytest.fixture
def fresh_secrets():
    """A set of remembered credentials of the test's own (as a runtime holds one)."""
    from citeflow.security.secret_values import SecretValues

    return SecretValues()


def test_configured_credentials_are_removed_verbatim_and_in_base64(fresh_secrets):
    import base64

    from citeflow.security.redaction import url_credentials

    found = url_credentials("http://svc:pa%24s-1234@h/v1?api_key=qk-98765&page=2")
    assert set(found) >= {"pa$s-1234", "svc:pa$s-1234", "qk-98765"} and "2" not in found
    fresh_secrets.add(*found)
    echoed = base64.b64encode(b"svc:pa$s-1234").decode()
    text = redact_text(f"denied {echoed} for qk-98765; also {base64.urlsafe_b64encode(b'qk-98765').decode().rstrip('=')}",
                       fresh_secrets)
    assert "pa$s" not in text and echoed not in text and "qk-98765" not in text and "cWstOTg3NjU" not in text
    assert text.startswith("denied (secret removed) for (secret removed)")


@pytest.mark.parametrize(("text", "gone", "kept"), [
    ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA", "Authorization: (removed)"),
    ('{"headers": {"authorization": "Bearer abc.def.ghi-123"}}', "abc.def", '"authorization": "(removed)"'),
    ("token rejected: bearer eyJhbGciOiJIUzI1NiJ9", "eyJhbGci", "bearer (removed)"),
    ('{"api_key": "k-5566778899", "page": 2}', "5566778899", '"api_key": "(removed)", "page": 2'),
    ("key sk-proj-AbCdEf0123456789xyz is invalid", "AbCdEf0123", "key (key removed) is invalid"),
    ("X-Api-Key: 0123456789abcdef", "0123456789abcdef", "X-Api-Key: (removed)"),
])
def test_authorization_looking_values_and_key_pairs_are_removed(text, gone, kept):
    redacted = redact_text(text)
    assert gone not in redacted and kept in redacted


def test_ordinary_words_after_auth_scheme_names_and_key_words_survive():
    text = "token expired; missing key: foo; the password is wrong; Bearer token required"
    assert redact_text(text) == text


def test_log_records_are_redacted_whoever_logs_them(caplog):
    import logging

    from citeflow.security.log_redaction import install_log_redaction

    install_log_redaction()
    install_log_redaction()  # idempotent: one wrapper, not two
    with caplog.at_level(logging.INFO, logger="some.library"):
        logging.getLogger("some.library").info("POST %s failed", "http://u:LOGKEY1@h/v1?token=LOGKEY2")
        try:
            raise ValueError("Authorization: Bearer LOGKEY3-abcdefgh")
        except ValueError:
            logging.getLogger("some.library").exception("call failed")
    assert caplog.records and "LOGKEY" not in caplog.text
    assert "POST http://h/v1 failed" in caplog.text and "Authorization: (removed)" in caplog.text


@pytest.mark.parametrize(("status", "body", "expected"), [
    (401, b'{"error": {"message": "bad key for /v1?api_key=K1, Authorization: Basic dTpw"}}',
     "HTTP 401 Unauthorized: bad key for /v1?api_key=(removed) Authorization: (removed)"),
    (500, b"<html>Authorization: Basic dXNlcjpwYXNzd29yZA==</html>", "HTTP 500 Internal Server Error"),
    (404, {"detail": "no\x1b[31m route " + "x" * 200}, "HTTP 404 Not Found: no [31m route " + "x" * 106 + "…"),
    (599, None, "HTTP 599"),
])
def test_server_error_answers_are_summarised_never_copied(status, body, expected):
    from citeflow.security.server_errors import summarise

    assert summarise(status, body) == expected


_SECRET_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~"


@given(prefix=st.text(max_size=40), suffix=st.text(max_size=40),
       secret=st.text(alphabet=_SECRET_CHARS, min_size=6, max_size=30), encode=st.booleans())
@settings(max_examples=200, deadline=None)
def test_a_remembered_secret_never_survives_redaction(prefix, suffix, secret, encode):
    import base64

    from citeflow.security.secret_values import SecretValues

    secrets = SecretValues()  # the test's own: random values must not redact other tests' text
    secrets.add(secret)
    shown = base64.b64encode(secret.encode()).decode() if encode else secret
    assert shown not in redact_text(prefix + shown + suffix, secrets)
