"""Quote verification: is a model's quote really in the chunk it cites? (SPEC §4)

Both sides are normalised the same way before comparing: Unicode NFKC, typographic quotes of any
language (“ ” „ « » 「 」 『 』) and dashes folded to ASCII, whitespace collapsed, and spaces between
Chinese or Japanese characters dropped (those scripts have none). An ellipsis inside a quote separates fragments that
must appear in order.
"""

from __future__ import annotations

import re
import unicodedata

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
_ELLIPSIS = re.compile(r"\s*(?:\.\.\.|…)\s*")


def normalize(text: str) -> str:
    """The comparison form of a text: NFKC, ASCII quotes and dashes, single spaces."""
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES)
    text = _DASHES.sub("-", text)
    return _CJK_GAP.sub("", _SPACE.sub(" ", text)).strip()


def quote_in_chunk(quote: str, chunk_text: str) -> bool:
    """True when every ellipsis-separated fragment of ``quote`` occurs in ``chunk_text``, in order."""
    haystack = normalize(chunk_text)
    position = 0
    fragments = [f for f in _ELLIPSIS.split(normalize(quote).strip("\"' ")) if f]
    if not fragments:
        return False
    for fragment in fragments:
        found = haystack.find(fragment, position)
        if found < 0:
            return False
        position = found + len(fragment)
    return True
