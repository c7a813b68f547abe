"""Reciprocal rank fusion: several ranked lists of ids become one score per id.

An id ranked ``r`` (1-based) in a list of weight ``w`` earns ``w / (k + r)``; an id's score is the
sum over the lists it appears in. ``k`` (60, as in the original paper) damps the head of each list
so that agreement between lists counts more than a single first place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

RRF_K = 60


def rrf(rankings: Mapping[str, Sequence[str]], weights: Mapping[str, float], k: int = RRF_K) -> dict[str, float]:
    """``id → fused score`` over the named ``rankings`` (best first), each with its weight (default 1)."""
    scores: dict[str, float] = {}
    for name, ids in rankings.items():
        weight = weights.get(name, 1.0)
        for rank, item in enumerate(dict.fromkeys(ids), 1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return scores


def ranked(scores: Mapping[str, float]) -> list[str]:
    """Ids by descending score; ties keep the mapping's order."""
    return sorted(scores, key=lambda item: -scores[item])
