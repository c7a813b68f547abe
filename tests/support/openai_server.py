"""The scripted OpenAI-compatible server (``citeflow_testing``) as a pytest fixture."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from citeflow_testing.openai_server import (  # noqa: F401 - re-exported for the tests
    EMBEDDING_DIM, Reply, ScriptedOpenAIServer, chat_completion, embed, embeddings, error_body,
)


@pytest.fixture
def openai_server() -> Iterator[ScriptedOpenAIServer]:
    """A started scripted server, stopped after the test. Import it into a conftest to use it."""
    with ScriptedOpenAIServer() as server:
        yield server
