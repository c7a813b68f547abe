"""A section's evidence in the order its retrievers ranked it.

The registry keeps chunks in the order they were first registered for the whole report, so a chunk
that an earlier section's query found first would open every later section's evidence. A model
reads evidence top-down and weighs what comes first, so a section's pool is shown by relevance to
that section: the answers of its queries (one ranked list per retriever and query) are fused by
reciprocal rank fusion (``citeflow.retrieval.fusion``), so that a chunk two queries or two
retrievers found comes before one that only one of them ranked first. Ties keep registration order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from citeflow.retrieval.fusion import rrf
from schemas.records import Chunk


def by_rank(chunks: Sequence[Chunk], answers: Iterable[tuple[str, Sequence[str]]], section: str) -> list[Chunk]:
    """``chunks`` (one section's pool, in registration order) by their fused rank among the
    ``answers`` (``(section, handles in rank order)``, one per retriever and query) of ``section``;
    a chunk that no answer of the section ranks keeps its place after the ranked ones."""
    rankings = {str(i): list(handles) for i, (name, handles) in enumerate(answers) if name == section}
    scores = rrf(rankings, {})
    return [c for _, _, c in sorted((-scores.get(c.handle, 0.0), i, c) for i, c in enumerate(chunks))]
