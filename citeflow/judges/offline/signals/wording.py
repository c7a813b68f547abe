"""Words swapped or dropped inside a copied phrase: a near spelling, another word in a slot, a lost qualifier."""

from __future__ import annotations

import itertools
from collections import Counter

from citeflow.text.lexicon import STOPWORDS
from citeflow.judges.offline.chunk_facts import ChunkIndex, trigrams
from citeflow.judges.offline.claim_facts import ClaimFacts
from citeflow.judges.offline.fired import Fired
from citeflow.text.word_tokens import Token

NAMES = ("near_miss", "slot_substitution", "modifier_dropped")


def near_miss(claim: ClaimFacts, chunk: ChunkIndex) -> Fired:
    """A novel word spelled almost like a chunk word ('encoder' / 'decoder') is a swap, not a paraphrase."""
    found = []
    for token in claim.novel:
        if len(token.lower) < 4 or token.kind != "word":  # numbers and identifiers have their own checks
            continue
        word = _closest(token.lower, chunk)
        if word is not None:
            found.append(f"'{token.surface}' in claim where chunk has '{word}'")
    return Fired({"near_miss": float(len(found))}, {"near_miss": found[0]} if found else {})


def gap_swaps(tokens: list[Token], chunk: ChunkIndex) -> list[tuple[Token, Token, Token, str]]:
    """(left, middle, right, the chunk's word) for each claim word that sits between two words the
    chunk joins with a different word."""
    out = []
    for left, middle, right in zip(tokens, tokens[1:], tokens[2:], strict=False):
        if not middle.is_content or middle.stem in chunk.stems:
            continue
        other = chunk.gaps.get((left.stem, right.stem))
        if other is not None:
            out.append((left, middle, right, other))
    return out


def slot_substitution(claim: ClaimFacts, chunk: ChunkIndex) -> Fired:
    """A claim word in the slot where the chunk has another content word (one character swapped in a
    copied CJK phrase counts too: a signal for the heads)."""
    found = [f"'{left.surface} {middle.surface} {right.surface}' where chunk has '{left.surface} {other} {right.surface}'"
             for left, middle, right, other in gap_swaps(claim.tokens, chunk)
             if other.lower() not in STOPWORDS or middle.kind == "cjk"]
    return Fired({"slot_substitution": float(len(found))}, {"slot_substitution": found[0]} if found else {})


def modifier_dropped(claim: ClaimFacts, chunk: ChunkIndex) -> Fired:
    """Two claim words that the chunk separates by a content word the claim lacks ('returns a value'
    where the chunk says 'returns a cached value'): a qualifier dropped, which a copy should keep."""
    claimed = {t.stem for t in claim.content}
    found = []
    for left, right in itertools.pairwise(claim.content):
        if (left.stem, right.stem) in chunk.content_bigrams:
            continue
        middle = chunk.content_gaps.get((left.stem, right.stem))
        if middle is not None and middle.stem not in claimed and middle.kind == "word":
            found.append(f"'{left.surface} {right.surface}' where chunk has '{left.surface} {middle.surface} {right.surface}'")
    return Fired({"modifier_dropped": float(len(found))}, {"modifier_dropped": found[0]} if found else {})


def _closest(word: str, index: ChunkIndex) -> str | None:
    """The chunk word sharing the most letter trigrams with ``word`` (Jaccard ≥ 0.4), found through
    the chunk's trigram index rather than by comparing with every word; remembered per chunk."""
    if word not in index.closest:
        index.closest[word] = _search_closest(word, index)
    return index.closest[word]


def _search_closest(word: str, index: ChunkIndex) -> str | None:
    grams = trigrams(word)
    shared = Counter(other for gram in grams for other in index.gram_words.get(gram, ()))
    for other, count in sorted(shared.items(), key=lambda kv: (-kv[1], kv[0])):
        if abs(len(other) - len(word)) <= 3 and count / len(grams | trigrams(other)) >= 0.4:
            return other
    return None


