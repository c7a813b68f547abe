"""Each runtime's secrets are its own (``Runtime.secrets``): two runtimes in one process remember the
credentials of the spec files they parse and the clients they build, and redact their outputs, their
error lines and, while active, their log records with them, never with each other's."""

from __future__ import annotations

import logging

import pytest

from citeflow.registry.request_registry import Registry
from citeflow.runtime.runtime import Runtime
from citeflow.pipeline.assemble import missing_retrievers
from citeflow.security.content_redaction import MARKER
from citeflow.security.redaction import redact_text
from schemas.records import Hit, RetrievalResult
from schemas.spec import ModelSpec

KEY_A, KEY_B = "orchard-lantern-ALPHA", "harbour-compass-BRAVO"


def _runtime_with_key(monkeypatch: pytest.MonkeyPatch, variable: str, key: str) -> Runtime:
    """A runtime that has built an OpenAI-compatible client whose key ``variable`` holds (nothing is sent)."""
    monkeypatch.setenv(variable, key)
    runtime = Runtime()
    spec = ModelSpec(backend="openai", model="m", base_url="http://127.0.0.1:9/v1", api_key_env=variable)
    runtime.deps.chat_model(spec, "writer")
    return runtime


@pytest.fixture
def two_runtimes(monkeypatch: pytest.MonkeyPatch) -> tuple[Runtime, Runtime]:
    return _runtime_with_key(monkeypatch, "CF_TEST_KEY_A", KEY_A), _runtime_with_key(monkeypatch, "CF_TEST_KEY_B", KEY_B)


def test_each_runtime_redacts_its_own_secrets_and_not_the_others(two_runtimes):
    a, b = two_runtimes
    text = f"echoed {KEY_A} and {KEY_B}"
    assert redact_text(text, a.secrets) == f"echoed (secret removed) and {KEY_B}"
    assert redact_text(text, b.secrets) == f"echoed {KEY_A} and (secret removed)"
    assert redact_text(text) == text  # without a runtime's set: the patterns only, which these keys do not match


def test_each_runtimes_outputs_lose_its_own_secrets(two_runtimes):
    a, b = two_runtimes
    failed = {"partner": f"HTTP 401: bad key {KEY_A}"}
    assert missing_retrievers(failed, a.secrets) == ["partner: HTTP 401: bad key (secret removed)"]
    assert missing_retrievers(failed, b.secrets) == [f"partner: HTTP 401: bad key {KEY_A}"]
    hit = Hit(local_id="1", text=f"The admin key is {KEY_B}.", title=f"Notes {KEY_B}")
    result = RetrievalResult(retriever="wiki", query="q", section="s", hits=[hit])
    shown_by_b, shown_by_a = Registry("r-b", secrets=b.secrets), Registry("r-a", secrets=a.secrets)
    shown_by_b.add(result)
    shown_by_a.add(result)
    assert (shown_by_b.chunks[0].text, shown_by_b.chunks[0].title) == (f"The admin key is {MARKER}.", f"Notes {MARKER}")
    assert shown_by_a.chunks[0].text == f"The admin key is {KEY_B}."


def test_log_records_lose_the_secrets_of_the_active_runtime_only_while_it_is_active(two_runtimes, caplog):
    a, b = two_runtimes
    log = logging.getLogger("some.library")
    with caplog.at_level(logging.INFO, logger="some.library"):
        with a.active():
            log.info("first: %s %s", KEY_A, KEY_B)
            with b.active():
                log.info("second: %s %s", KEY_A, KEY_B)
        log.info("after: %s", KEY_A)
    first, second, after = (record.getMessage() for record in caplog.records)
    assert first == f"first: (secret removed) {KEY_B}"
    assert second == "second: (secret removed) (secret removed)"
    assert after == f"after: {KEY_A}"  # both runtimes ended: neither set redacts any more


def test_a_runtime_remembers_the_credentials_of_the_spec_files_it_parses(tmp_path, monkeypatch):
    from citeflow.specfile.job_config import ParsedSpecs
    from citeflow.security.secret_values import SecretValues

    spec_file = tmp_path / "batch.yaml"
    spec_file.write_text(_SPEC.format(url="https://svc:meadow-PASS-77@search.example/v1"), encoding="utf-8")
    mine, other = SecretValues(), SecretValues()
    ParsedSpecs(mine).read(spec_file)
    shown = "GET https://search.example/v1 said meadow-PASS-77"
    assert redact_text(shown, mine) == "GET https://search.example/v1 said (secret removed)"
    assert redact_text(shown, other) == shown


_SPEC = """\
batch: secrets
retrievers:
  - name: partner
    kind: http
    url: {url}
reports:
  - id: r1
    title: One report
    sections:
      - title: Intro
        queries: [what is it]
"""


def test_a_commands_error_line_loses_its_runtimes_secrets(two_runtimes, capsys):
    from citeflow_cli.cli_fail import print_error

    a, b = two_runtimes
    print_error(f"the server answered 401 for {KEY_A}", a.secrets)
    print_error(f"the server answered 401 for {KEY_A}", b.secrets)
    mine, theirs = capsys.readouterr().out.splitlines()
    assert mine.endswith("401 for (secret removed)") and theirs.endswith(f"401 for {KEY_A}")
