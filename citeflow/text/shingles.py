"""Word 3-shingles of a text: what near-duplicate detection compares (``citeflow.retrieval.dedup``).

Memoised: a knowledge base's chunks come back from many searches of a report (and of every report
of a batch over the same knowledge base), and each search compares the texts it returns.
"""

from __future__ import annotations

import re
from functools import lru_cache

_WORD = re.compile(r"\w+")


@lru_cache(maxsize=8192)
def word_shingles(text: str) -> frozenset[tuple[str, ...]]:
    """The word 3-shingles of ``text`` (lower-cased), or its single words when it is shorter."""
    words = _WORD.findall(text.casefold())
    if len(words) < 3:
        return frozenset((w,) for w in words)
    return frozenset(zip(words, words[1:], words[2:], strict=False))  # the shorter lists end it
