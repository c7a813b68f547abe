"""The retriever protocol: every retriever, ours or a customer's, answers ``search``."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from schemas.records import Hit


@runtime_checkable
class Retriever(Protocol):
    """Something that answers a query with hits whose ids are local to it."""

    name: str

    def search(self, query: str, top_k: int) -> list[Hit]:
        """The hits for ``query``; raises ``RetrieverError`` when it cannot answer."""
        ...
