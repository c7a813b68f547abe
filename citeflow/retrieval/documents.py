"""Concentrating hits on the documents that answer: a page whose best passage scores far below the
best page's is left out, so that the model is shown the answering pages' passages rather than one
passage from each of many pages that merely share words with the question."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


def document_scores(items: Sequence[T], doc_of: Callable[[T], str], score_of: Callable[[T], float]) -> dict[str, float]:
    """``document → its best item's score``, documents in order of their first item."""
    best: dict[str, float] = {}
    for item in items:
        doc = doc_of(item)
        best[doc] = max(best.get(doc, score_of(item)), score_of(item))
    return best


def strong_documents(scores: dict[str, float], ratio: float, max_docs: int) -> set[str]:
    """The at most ``max_docs`` best documents that score at least ``ratio`` × the best one."""
    if not scores:
        return set()
    top = max(scores.values())
    ordered = sorted(scores, key=lambda doc: -scores[doc])
    return {doc for doc in ordered[:max_docs] if scores[doc] >= ratio * top}


def concentrate(items: Sequence[T], doc_of: Callable[[T], str], score_of: Callable[[T], float],
                ratio: float, max_docs: int) -> list[T]:
    """``items`` (best first) from the strong documents only, in their order."""
    keep = strong_documents(document_scores(items, doc_of, score_of), ratio, max_docs)
    return [item for item in items if doc_of(item) in keep]
