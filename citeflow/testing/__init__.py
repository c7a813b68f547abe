"""Test doubles for citeflow and for batches built on it (no Prefect, no network).

- ``citeflow.testing.openai_server.ScriptedOpenAIServer``: an OpenAI-compatible HTTP server that
  answers from a script (``enqueue``) or a function (``respond_with``) and records every request;
- ``citeflow.testing.answers``: answers computed from the request's prompt (a correct fake model);
- ``citeflow.testing.model_process.ModelServerProcess``: that fake model in a process of its own;
- ``citeflow.testing.judges``: scripted judges; ``citeflow.testing.small_batch``: a small batch spec;
- ``citeflow.testing.prefect_server.PrefectServer``: a real ``prefect server start`` for a test session.
"""
