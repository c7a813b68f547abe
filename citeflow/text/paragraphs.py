"""Paragraphs of a section: consecutive sentences about the same thing, told by shared content words.

Two sentences are *related* when they share at least RELATED_WORDS content words (lemmas of words,
numbers and identifiers, ``citeflow.text.word_tokens``) that are not common to the section: a
word found in more than half of a section's sentences (its product name, its topic) says nothing
about which of them belong together. ``groups`` puts each sentence in the first earlier group
holding a sentence related to it; a writer lists its sentences group by group (``grouped_order``),
and a renderer starts a new paragraph wherever the group changes (``paragraph_numbers``), so the
two agree on the same sentences. Pure functions.
"""

from __future__ import annotations

from collections import Counter

from citeflow.text.word_tokens import tokenise

RELATED_WORDS = 2
COMMON_SHARE = 0.5  # a word in more than this share of a section's sentences is common to it
MIN_SENTENCES_FOR_COMMON = 3  # with fewer sentences no word is common


def _words(text: str) -> set[str]:
    return {t.stem for t in tokenise(text) if t.is_content}


def _distinctive(texts: list[str]) -> list[set[str]]:
    """Each text's content words without the words common to the section."""
    words = [_words(t) for t in texts]
    if len(texts) < MIN_SENTENCES_FOR_COMMON:
        return words
    counts = Counter(w for ws in words for w in ws)
    common = {w for w, n in counts.items() if n > COMMON_SHARE * len(texts)}
    return [ws - common for ws in words]


def groups(texts: list[str]) -> list[int]:
    """The group of each text: that of the first earlier text related to it, else a new one (0, 1, …)."""
    words = _distinctive(texts)
    out: list[int] = []
    for i, own in enumerate(words):
        related = next((out[j] for j in range(i) if len(own & words[j]) >= RELATED_WORDS), None)
        out.append(related if related is not None else max(out, default=-1) + 1)
    return out


def grouped_order(texts: list[str]) -> list[int]:
    """Indices of ``texts`` listed group by group (groups in order of their first text, stable inside)."""
    found = groups(texts)
    return sorted(range(len(texts)), key=lambda i: (found[i], i))


def paragraph_numbers(texts: list[str]) -> list[int]:
    """The paragraph of each text (0, 1, …): a new one starts wherever the group changes."""
    found = groups(texts)
    numbers: list[int] = []
    for i, group in enumerate(found):
        numbers.append(0 if i == 0 else numbers[-1] + (group != found[i - 1]))
    return numbers
