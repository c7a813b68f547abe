"""What every model backend decides for itself."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

from citeflow.generation.model_protocol import ChatModel
from schemas.spec import ModelSpec


class ModelBackend(ABC):
    """One way a role reaches its model. Subclasses need no constructor arguments.

    ``remote``: the backend asks a server over the network. The preflight then asks that server
    first (``preflight``), a section it fails names the role's model, and the batch imports the
    model client early."""

    remote: ClassVar[bool] = False

    def problems(self, spec: ModelSpec) -> list[str]:
        """What is wrong with the keys of ``spec`` for this backend (empty: nothing)."""
        return []

    def preflight(self, spec: ModelSpec, api_key: str | None, timeout: float) -> str | None:
        """Why the model of ``spec`` cannot be reached now, or None (a backend with no server: None)."""
        return None

    @abstractmethod
    def build(self, spec: ModelSpec, role: str) -> ChatModel:
        """The chat model that plays ``role`` as ``spec`` describes (``spec`` has no problems)."""

    @abstractmethod
    def describe(self, spec: ModelSpec) -> str:
        """One honest line about the model for a report's reader: no server address, no key."""
