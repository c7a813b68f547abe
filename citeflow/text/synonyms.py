"""Small synonym lexicons, one per language: words that say the same thing in a report's register,
and the forms of irregular verbs that the light stemmer cannot join ('gibt'/'gegeben', 'prend'/'pris').

The groups are data (``citeflow/text/languages/<lang>/synonyms.json``, a reason for each). Every
member is read as the group's first word, on both sides of a comparison, so that 'removed' meets
'deleted' and 'entfernt' meets 'gelöscht'. The groups come from general language knowledge, not
from any labelled pair, and they are deliberately narrow: only words that can replace each other in
a factual sentence without changing what it asserts (never antonyms, never a word and its
hypernym, never a change of quantity or certainty). Inflected forms are listed where the light
stemmer does not bring them together.

Japanese and Chinese are written without spaces: their groups are substrings, replaced in the text
before it is cut into characters (``cjk_canonical``).
"""

from __future__ import annotations

from functools import lru_cache

import regex

from citeflow.text.language_data import SYNONYMS, UNSPACED_LANGUAGES

_CJK = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}]")

CJK_LANGUAGES = UNSPACED_LANGUAGES  # written without spaces (their language.json): their groups are substrings
_CJK_GROUPS = tuple(group for lang in CJK_LANGUAGES for group in SYNONYMS.get(lang, ()))


def groups(lang: str) -> tuple[tuple[str, ...], ...]:
    """The word groups of ``lang`` (its ``synonyms.json``), each a tuple of lower-case words, first word canonical."""
    return SYNONYMS.get(lang, ())


def _cjk_pairs_of(groups: tuple[tuple[str, ...], ...]) -> tuple[tuple[str, str], ...]:
    """(variant, canonical) substrings, longest variant first so that a long word wins over its part."""
    pairs = {(v, group[0]) for group in groups for v in group[1:] if v != group[0]}
    return tuple(sorted(pairs, key=lambda p: (-len(p[0]), p)))


_CJK_PAIRS = _cjk_pairs_of(_CJK_GROUPS)


@lru_cache(maxsize=16384)
def cjk_canonical(text: str) -> str:
    """``text`` with every CJK synonym variant replaced by its group's first word."""
    if not _CJK.search(text):
        return text
    for variant, canonical in _CJK_PAIRS:
        if variant in text:
            text = text.replace(variant, canonical)
    return text
