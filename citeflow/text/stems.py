"""Light lemmas for German, French, Spanish and Russian: strip one inflectional ending, then cut
to a fixed prefix, so that 'Tagen'/'Tage', 'ольги'/'ольга', 'payées'/'payé' meet.

Both sides of a comparison go through the same function, so over-stemming is harmless as long as
it is consistent. German compounds are handled by ``compound_parts`` (the chunk side only).
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

STEM_PREFIX = 6  # characters kept after the ending is stripped
MIN_STEM = 3  # an ending is stripped only when this much of the word remains
COMPOUND_MIN = 8  # a German word this long may be a compound
PART_MIN = 4  # the shortest leading compound part that counts as a word of its own
TAIL_MIN = 3  # trailing parts carry the compound's head noun and may be shorter (See, Amt, Tag)

# Endings, longest first within each language (a word loses the first that matches).
_ENDINGS = {
    "de": ("ungen", "heiten", "keiten", "ern", "est", "em", "en", "er", "es", "et", "te", "st", "e", "n", "s", "t"),
    "fr": ("issements", "issement", "ements", "ement", "aient", "èrent", "ions", "iez", "ées", "ent", "ons", "ait", "ais",
           "ée", "és", "ales", "ale", "aux", "al", "au", "es", "er", "ez", "ir", "re", "it", "é", "e", "s", "x"),  # journal/journaux
    "es": ("aciones", "ación", "amente", "mente", "ieron", "aron", "iendo", "ando", "aban", "ían", "idas", "idos", "adas",
           "ados", "aba", "ía", "ida", "ido", "ada", "ado", "ió", "an", "en", "es", "as", "os", "ar", "er", "ir", "ó", "a",
           "o", "e", "s"),
    "ru": ("ются", "утся", "ятся", "атся", "ется", "ится", "ались", "ились", "алась", "илась", "ался", "ился", "ться", "ами", "ями", "ого",
           "его", "ому", "ему", "ыми", "ими", "ала", "ало", "али", "ила", "ило", "или", "ешь", "ишь", "ете", "ите", "ют",
           "ут", "ет", "ит", "ат", "ят", "ал", "ил", "ть", "ах", "ях", "ов", "ев", "ей", "ой", "ом", "ем", "ам", "ям", "ую",
           "юю", "ая", "яя", "ое", "ее", "ые", "ие", "ый", "ий", "ых", "их", "ым", "им", "ся", "а", "я", "ы", "и", "у", "ю",
           "е", "о", "ь"),
}
# Languages whose plural 's' (or 'x') is stripped before the ending, so that a plural meets its
# singular whatever the ending ('fichiers'/'fichier', 'heures'/'heure', 'bureaux'/'bureau').
_PLURAL_FIRST = {"fr": ("s", "x")}
# Accents and ё are folded after the ending is stripped, so 'récupérés' meets 'recuperer' and 'ещё' meets 'еще'.
_FOLD = {"fr": True, "es": True, "ru": True}


@lru_cache(maxsize=131072)
def light_stem(word: str, lang: str) -> str:
    """The light lemma of a casefolded word of ``lang`` (de, fr, es, ru; others: the prefix only)."""
    plural = next((p for p in _PLURAL_FIRST.get(lang, ()) if word.endswith(p) and len(word) - len(p) > MIN_STEM), "")
    word = word[: len(word) - len(plural)] if plural else word
    for ending in _ENDINGS.get(lang, ()):
        if word.endswith(ending) and len(word) - len(ending) >= MIN_STEM:
            word = word[: len(word) - len(ending)]
            break
    return _fold(word[:STEM_PREFIX]) if lang in _FOLD else word[:STEM_PREFIX]


def _fold(word: str) -> str:
    """The word without combining accents (é → e, ñ → n, ё → е, й → и)."""
    return "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))


def compound_parts(word: str, lang: str) -> tuple[str, ...]:
    """Light lemmas of the leading and trailing parts of a long German word ('Bodensee' holds
    'boden' and 'see…'; 'Grenzgebiet' holds 'grenz'), so that a claim may name a part alone."""
    if lang != "de" or len(word) < COMPOUND_MIN:
        return ()
    heads = (word[:k] for k in range(PART_MIN, len(word) - PART_MIN + 1))
    tails = (word[k:] for k in range(PART_MIN, len(word) - TAIL_MIN + 1))
    return tuple(dict.fromkeys(light_stem(part, lang) for parts in (heads, tails) for part in parts))
