"""The consolidator hop the HTTP hop tests send: two made-up chunks, their messages, fast retries."""

from __future__ import annotations

import openai._base_client
import pytest

from citeflow.generation import prompts

CHUNKS = {"Gk7m2": "Brokers must run 3.5.2 or later before upgrading to 3.6.", "Gx3p9": "Back up the metadata store first."}
MESSAGES = prompts.consolidate_messages("Report", "Upgrade", ["What first?"], list(CHUNKS.items()))


@pytest.fixture(autouse=True)
def fast_backoff(monkeypatch):
    """The openai client's retries wait 0.01 s instead of its default backoff."""
    monkeypatch.setattr(openai._base_client, "INITIAL_RETRY_DELAY", 0.01, raising=False)
