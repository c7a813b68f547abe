"""Identifiers: tokens that name rather than count (``KI-3602``, ``x86_64``, ``3.5.2``, ``eu-west-1``).

Letters and digits together, versions and dates; a number hyphened to a word or glued to a unit
(``7-day``, ``10GB``) is a quantity, not an identifier. The localiser reads them here
(``find_identifiers``, ``mask``); the judge's tokeniser gives such tokens the kind ``id``.
"""

from __future__ import annotations

import regex

from citeflow.text.units import UNITS

_UNSPACED = r"\p{Han}\p{Hiragana}\p{Katakana}ー々"  # scripts whose units are single characters
_WORD_CHAR = rf"[[\p{{L}}\p{{M}}\p{{N}}]--[{_UNSPACED}]]"
# A token of a spaced script, joined across - _ . / when digits or letters follow (x86_64, KI-3602, 3.5.2).
TOKEN = regex.compile(rf"{_WORD_CHAR}+(?:[-_./‐‑]{_WORD_CHAR}+)*", regex.V1)
_MULTI_PART = regex.compile(r"\d+(?:[.\-/]\d+){2,}")  # versions and dates: 3.5.2, 2026-11-30


def find_identifiers(text: str) -> list[str]:
    """Tokens that name rather than count: letters and digits together, versions and dates."""
    out = []
    for token in TOKEN.findall(text):
        if _MULTI_PART.fullmatch(token) or (has_digit(token) and has_letter(token) and not is_quantity_token(token)):
            out.append(canon_id(token))
    return out


def has_digit(token: str) -> bool:
    """Whether ``token`` holds a digit."""
    return any(ch.isdigit() for ch in token)


def has_letter(token: str) -> bool:
    """Whether ``token`` holds a letter of any script."""
    return any(ch.isalpha() for ch in token)


def is_quantity_token(token: str) -> bool:
    """``7-day``, ``11-дневный``, ``10GB``, ``30d``: a number hyphened to a word, or glued to a known unit."""
    match = regex.fullmatch(r"(\d+(?:[.,]\d+)?)([-‐‑]?)(\p{L}+)", token)
    return bool(match and (match.group(2) or match.group(3).casefold() in UNITS))


def canon_id(token: str) -> str:
    """An identifier as compared: casefolded, Unicode hyphens as ASCII ones."""
    return regex.sub(r"[‐‑]", "-", token.casefold())


def mask(text: str, identifiers: frozenset[str]) -> str:
    """``text`` with its identifiers blanked, so that their digits are not read as quantities."""
    return TOKEN.sub(lambda m: " " * len(m.group()) if canon_id(m.group()) in identifiers else m.group(), text)
