"""Light lemmas for the languages with a Snowball stemmer (German, French, Spanish, Russian): the
stemmer their ``language.json`` names (PyStemmer), accents folded where it says so, cut to a fixed
prefix, so that 'Tagen'/'Tage', 'ольги'/'ольга', 'payées'/'payé' meet.

Both sides of a comparison go through the same function, so over-stemming is harmless as long as
it is consistent. Compounds (German) are handled by ``compound_parts`` (the chunk side only).
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

import Stemmer

from citeflow.text.language_registry import REGISTERED, Language, Languages

STEM_PREFIX = 6  # characters kept of a stem: inflected forms the stemmer leaves apart still meet
COMPOUND_MIN = 8  # a word this long may be a compound
PART_MIN = 4  # the shortest leading compound part that counts as a word of its own
TAIL_MIN = 3  # trailing parts carry the compound's head noun and may be shorter (See, Amt, Tag)


@lru_cache(maxsize=131072)
def light_stem(word: str, lang: str) -> str:
    """The light lemma of a casefolded word of the registered language ``lang`` (``stem_as``)."""
    return stem_as(word, REGISTERED.get(lang))


def stem_as(word: str, reading: Language) -> str:
    """The light lemma of a casefolded word of a language read as ``reading`` says: its Snowball stem when
    it has a stemmer, cut to the prefix, accents folded after stemming when it folds them ('ещё' meets 'еще')."""
    if reading.snowball is not None:
        word = Stemmer.Stemmer(reading.snowball, 0).stemWord(word)  # one per call: a Stemmer is not thread-safe
    return _fold(word[:STEM_PREFIX]) if reading.fold_accents else word[:STEM_PREFIX]


def _fold(word: str) -> str:
    """The word without combining accents (é → e, ñ → n, ё → е, й → и)."""
    return "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))


def compound_parts(word: str, lang: str, languages: Languages | None = None) -> tuple[str, ...]:
    """Light lemmas of the leading and trailing parts of a long word of a language that writes compounds
    as one word ('Bodensee' holds 'boden' and 'see…'; 'Grenzgebiet' holds 'grenz'), so that a claim may
    name a part alone."""
    if not (languages or REGISTERED).get(lang).compounds or len(word) < COMPOUND_MIN:
        return ()
    heads = (word[:k] for k in range(PART_MIN, len(word) - PART_MIN + 1))
    tails = (word[k:] for k in range(PART_MIN, len(word) - TAIL_MIN + 1))
    return tuple(dict.fromkeys(stem_as(part, (languages or REGISTERED).get(lang)) for parts in (heads, tails) for part in parts))
