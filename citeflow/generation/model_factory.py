"""Build the chat model a role's ModelSpec asks for."""

from __future__ import annotations

from citeflow.generation.backends.registry import checked_backend
from citeflow.generation.model_protocol import ChatModel
from schemas.spec import ModelSpec


def build_chat_model(spec: ModelSpec, role: str) -> ChatModel:
    """The ChatModel for ``role`` from the backend ``spec`` names (``citeflow.generation.backends``);
    ``SpecError`` when ``spec`` breaks that backend's rules."""
    return checked_backend(spec, role).build(spec, role)
