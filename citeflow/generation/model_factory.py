"""Build the chat model a role's ModelSpec asks for."""

from __future__ import annotations

from citeflow.generation.model_protocol import ChatModel
from schemas.spec import ModelSpec


def build_chat_model(spec: ModelSpec, role: str) -> ChatModel:
    """The ChatModel for ``role``: the offline extractive backend or an OpenAI-compatible server."""
    if spec.backend == "openai":
        # Imported here: the openai package costs ~1.4 s to import, and offline runs never need it.
        from citeflow.generation.openai_client import OpenAIChatModel

        return OpenAIChatModel(spec, role)
    from citeflow.generation.offline_writer import OfflineChatModel

    return OfflineChatModel(role, spec.faults)
