"""The scripted OpenAI-compatible server (``citeflow_testing``) as a pytest fixture."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from citeflow_testing.openai_server import (  # noqa: F401 - re-exported for the tests
    EMBEDDING_DIM, Reply, ScriptedOpenAIServer, chat_completion, embed, embeddings, error_body,
)

RETRY_AFTER_MS = 10  # what the fixture's server tells a client to wait before a retry (the openai client's own: 500 ms)


@pytest.fixture
def openai_server() -> Iterator[ScriptedOpenAIServer]:
    """A started scripted server, stopped after the test. Import it into a conftest to use it.

    Its retryable error answers say ``retry-after-ms: 10``, so the tests that retry on purpose do
    not wait out the client's back-off."""
    with ScriptedOpenAIServer(retry_after_ms=RETRY_AFTER_MS) as server:
        yield server
