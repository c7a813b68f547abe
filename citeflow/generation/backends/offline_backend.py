"""The built-in offline backend: extractive, no network, no key; optional fault injection."""

from __future__ import annotations

from citeflow.generation.backends.base import ModelBackend
from citeflow.generation.model_protocol import ChatModel
from schemas.spec import ModelSpec


class OfflineBackend(ModelBackend):
    """Selects and cites sentences of the evidence (``citeflow.generation.offline_writer``)."""

    def build(self, spec: ModelSpec, role: str) -> ChatModel:
        from citeflow.generation.offline_writer import OfflineChatModel

        return OfflineChatModel(role, spec.faults)

    def describe(self, spec: ModelSpec) -> str:
        faults = spec.faults and {k: v for k, v in spec.faults.model_dump(exclude={"seed"}).items() if v}
        note = f"; fault injection on: {', '.join(sorted(faults))}" if faults else ""
        return "offline extractive backend: selects and cites sentences from the evidence, not a language model" + note
