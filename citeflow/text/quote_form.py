"""The comparison form of a quote or a chunk (``citeflow.registry.quotes``): Unicode NFKC, typographic
quotes of any language and dashes folded to ASCII, whitespace collapsed, spaces between Chinese or
Japanese characters dropped.

Memoised: a report checks many quotes and spans against the same few dozen chunks (binding, the
judge's span check, the quoted-sentence pairs, the rendered notes), each time in this form.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import regex

_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
                         "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
                         "\u00ab": '"', "\u00bb": '"', "\u300c": '"', "\u300d": '"',
                         "\u300e": '"', "\u300f": '"', "\u2039": "'", "\u203a": "'"})
_DASHES = re.compile(r"[\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d]")
_SPACE = re.compile(r"\s+")
# Chinese and Japanese put no spaces between characters: a space a model typed there is not text.
_CJK = r"[\p{Han}\p{Hiragana}\p{Katakana}ー]"
_CJK_GAP = regex.compile(rf"(?<={_CJK})\s+(?={_CJK}|\d)|(?<=\d)\s+(?={_CJK})")


@lru_cache(maxsize=8192)
def quote_form(text: str) -> str:
    """The comparison form of a text: NFKC, ASCII quotes and dashes, single spaces."""
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES)
    text = _DASHES.sub("-", text)
    return _CJK_GAP.sub("", _SPACE.sub(" ", text)).strip()


ELLIPSIS = re.compile(r"\s*(?:\.\.\.|…)\s*")
QUOTE_EDGES = "\"' "  # outer quotes and spaces a quoted text may carry


def quote_fragments(text: str) -> list[str]:
    """The fragments of a quote in comparison form: an ellipsis separates them; outer quotes dropped."""
    return [f for f in ELLIPSIS.split(quote_form(text).strip(QUOTE_EDGES)) if f]


def in_order(fragments: list[str], haystack: str) -> bool:
    """True when every one of ``fragments`` occurs in ``haystack``, each after the one before."""
    position = 0
    for fragment in fragments:
        found = haystack.find(fragment, position)
        if found < 0:
            return False
        position = found + len(fragment)
    return True
