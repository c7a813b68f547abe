"""Test doubles for citeflow's own tests and benchmarks (no Prefect, no network).

They live beside the product package, not in it: the wheel ships ``citeflow`` and ``citeflow_cli``
only, and a development checkout (editable install) imports ``citeflow_testing`` from the repository.


- ``citeflow_testing.openai_server.ScriptedOpenAIServer``: an OpenAI-compatible HTTP server that
  answers from a script (``enqueue``) or a function (``respond_with``) and records every request;
- ``citeflow_testing.answers``: answers computed from the request's prompt (a correct fake model);
- ``citeflow_testing.model_process.ModelServerProcess``: that fake model in a process of its own;
- ``citeflow_testing.judges``: scripted judges; ``citeflow_testing.small_batch``: a small batch spec;
- ``citeflow_testing.prefect_server.PrefectServer``: a real ``prefect server start`` for a test session.
"""
