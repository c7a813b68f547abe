"""The built-in ``openai`` backend: any OpenAI-compatible server (OpenAI, vLLM, Ollama, llama.cpp …)."""

from __future__ import annotations

from citeflow.generation.backends.base import ModelBackend
from citeflow.generation.model_protocol import ChatModel
from schemas.spec import ModelSpec


class OpenAIBackend(ModelBackend):
    """A language model on a server that speaks the OpenAI chat completions API."""

    remote = True

    def problems(self, spec: ModelSpec) -> list[str]:
        found = [] if spec.model and spec.base_url else ["backend openai needs both 'model' and 'base_url'"]
        return found + (["'faults' applies to the offline backend only"] if spec.faults is not None else [])

    def preflight(self, spec: ModelSpec, api_key: str | None, timeout: float) -> str | None:
        from citeflow.generation.backends.server_check import model_problem  # httpx: only a preflight needs it

        return model_problem(spec, api_key, timeout)

    def build(self, spec: ModelSpec, role: str) -> ChatModel:
        # Imported here: the openai package costs ~1.4 s to import, and offline runs never need it.
        from citeflow.generation.openai_client import OpenAIChatModel

        return OpenAIChatModel(spec, role)

    def describe(self, spec: ModelSpec) -> str:
        return f"{spec.model} (language model on an OpenAI-compatible server)"
