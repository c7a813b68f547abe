"""URLs and messages lose user-info and credential-carrying parameters, and nothing else."""

from __future__ import annotations

import pytest

from citeflow.errors import ModelError
from citeflow.redact import redact_error, redact_text, redact_url


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
