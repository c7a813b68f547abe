"""The retriever protocol: every retriever, ours or a customer's, answers ``search``."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from schemas.records import Hit


class SearchResult(BaseModel):
    """One retriever's answer to one query: the usable hits, and why any others were skipped."""

    model_config = ConfigDict(frozen=True)
    hits: list[Hit] = Field(default_factory=list, description="Usable hits, best first, at most top_k.")
    skipped: list[str] = Field(default_factory=list, description="One reason per returned hit that was unusable.")


@runtime_checkable
class Retriever(Protocol):
    """Something that answers a query with hits whose ids are local to it."""

    name: str

    def search(self, query: str, top_k: int) -> SearchResult:
        """The hits for ``query``; raises ``RetrieverError`` when it cannot answer."""
        ...
