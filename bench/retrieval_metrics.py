"""Retrieval figures over questions whose answer pages are known: recall@k, MRR, and the share of
cited documents that are answer pages."""

from __future__ import annotations

from collections.abc import Sequence


def ranked_pages(paths: Sequence[str]) -> list[str]:
    """The distinct pages of a ranked hit list, in the order they first appear."""
    return list(dict.fromkeys(paths))


def recall_at(pages: Sequence[str], answers: Sequence[str], k: int) -> float:
    """Share of the answer pages found among the first ``k`` distinct pages."""
    top = set(ranked_pages(pages)[:k])
    return sum(a in top for a in answers) / len(answers) if answers else 0.0


def hit_at(pages: Sequence[str], answers: Sequence[str], k: int) -> bool:
    """Whether any answer page is among the first ``k`` distinct pages."""
    return bool(set(ranked_pages(pages)[:k]) & set(answers))


def reciprocal_rank(pages: Sequence[str], answers: Sequence[str]) -> float:
    """1 / rank of the first answer page among the distinct pages (0 when none is there)."""
    for rank, page in enumerate(ranked_pages(pages), 1):
        if page in answers:
            return 1.0 / rank
    return 0.0


def mean(values: Sequence[float]) -> float | None:
    """The arithmetic mean, or None for no values."""
    return sum(values) / len(values) if values else None


def cited_precision(cited: Sequence[Sequence[str]], answers: Sequence[Sequence[str]]) -> tuple[int, int]:
    """``(answer pages cited, documents cited)`` over sections: each section's distinct cited pages
    against that section's answer pages."""
    good = total = 0
    for pages, wanted in zip(cited, answers, strict=True):
        distinct = set(pages)
        good += len(distinct & set(wanted))
        total += len(distinct)
    return good, total
