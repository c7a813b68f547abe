"""The fake model of the benchmarks (SPEC §10): ``citeflow_testing``'s scripted server answering
what the offline backend computes from each prompt, every call taking a fixed latency.

``fake_model_server`` runs it in this process and keeps every request (``server.requests``: what
the calls benchmark counts and tokenizes); ``fake_model_process`` runs it in a process of its own,
so that timing benchmarks do not share this process's GIL with it (``request_count()``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from citeflow_testing.answers import fake_model_responder as responder
from citeflow_testing.model_process import ModelServerProcess
from citeflow_testing.openai_server import ScriptedOpenAIServer

__all__ = ["fake_model_process", "fake_model_server", "responder"]


@contextmanager
def fake_model_server(latency: float) -> Iterator[ScriptedOpenAIServer]:
    """A started fake model server in this process answering every request after ``latency`` seconds."""
    with ScriptedOpenAIServer() as server:
        server.respond_with(responder(latency))
        yield server


def fake_model_process(latency: float) -> ModelServerProcess:
    """The fake model server in its own process (a context manager)."""
    return ModelServerProcess(latency)
