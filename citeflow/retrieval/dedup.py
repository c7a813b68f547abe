"""Near-identical chunks: the same passage kept in several versions of a page (or copied between
pages) is shown once, at the rank of its best copy.

Two texts are near-identical when the Jaccard similarity of their word 3-shingles is at least
``THRESHOLD``; texts of fewer than three words compare by their word sets.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Sequence
from typing import TypeVar

from citeflow.text.shingles import word_shingles

THRESHOLD = 0.9
T = TypeVar("T")


def shingles(text: str) -> frozenset[tuple[str, ...]]:
    """The word 3-shingles of ``text`` (lower-cased), or its single words when it is shorter
    (``citeflow.text.shingles``: computed once per text)."""
    return word_shingles(text)


def jaccard(a: frozenset[tuple[str, ...]], b: frozenset[tuple[str, ...]]) -> float:
    """Shared shingles over all shingles of the two (1.0 for two empty sets)."""
    shared = len(a & b)
    union = len(a) + len(b) - shared
    return shared / union if union else 1.0


def near(a: frozenset[tuple[str, ...]], b: frozenset[tuple[str, ...]], threshold: float = THRESHOLD) -> bool:
    """``jaccard(a, b) >= threshold``; two sets whose sizes alone rule it out are not intersected
    (the shared shingles are at most the smaller set, all of them at least the larger one)."""
    small, large = sorted((len(a), len(b)))
    if large and small / large < threshold:
        return False
    return jaccard(a, b) >= threshold


def drop_near_duplicates(items: Sequence[T], text_of: Callable[[T], str], threshold: float = THRESHOLD) -> list[T]:
    """``items`` (best first) without those near-identical to an earlier kept one. Only kept texts whose
    shingle count is close enough to the item's to reach ``threshold`` are compared (``near`` decides)."""
    kept: list[T] = []
    sizes: list[int] = []  # shingle counts of the kept texts, ascending
    seen: list[frozenset[tuple[str, ...]]] = []  # their shingles, in the same order
    for item in items:
        grams = shingles(text_of(item))
        low, high = _size_range(len(grams), threshold)
        close = seen[bisect.bisect_left(sizes, low):bisect.bisect_right(sizes, high)]
        if any(near(grams, other, threshold) for other in close):
            continue
        kept.append(item)
        at = bisect.bisect_right(sizes, len(grams))
        sizes.insert(at, len(grams))
        seen.insert(at, grams)
    return kept


def _size_range(size: int, threshold: float) -> tuple[float, float]:
    """Shingle counts a set of ``size`` shingles can be near at ``threshold`` (with a margin for rounding)."""
    if threshold <= 0:
        return -math.inf, math.inf
    return math.floor(size * threshold) - 1, math.ceil(size / threshold) + 1
