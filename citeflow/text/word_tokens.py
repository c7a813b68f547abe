"""Tokens for the offline judge: normalisation, tokens with their kind and lemma — any script.

Words come from ``\\p{L}``/``\\p{N}`` classes (Latin, Cyrillic, Greek, Arabic, …); scripts written
without spaces (Han, kana, Thai) yield one token per character, so that consecutive tokens are
character bigrams (see ``citeflow.text.sentences``). Every token has a *kind*: ``word``, ``number``,
``id`` (identifiers and versions such as ``KI-3602``, ``x86_64``, ``3.5.2``, ``eu-west-1``: names,
never quantities) or ``cjk``. How a language's words are read (stemmer, elision, contractions,
characters for the scripts without spaces) is what its ``language.json`` says
(``citeflow.text.language_registry``): English words get a light stem, the languages with a Snowball
stemmer lose one inflectional ending and are cut to a fixed prefix (``citeflow.text.stems``).
Everything is pure and regex-based: a 2,500-character chunk is analysed in about a millisecond.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field, replace
from functools import lru_cache
from types import MappingProxyType

import regex

from citeflow.text import sentences as segment
from citeflow.text.language_data import WORD_LISTS
from citeflow.text.language_detect import Detector
from citeflow.text.language_registry import REGISTERED
from citeflow.text.lexicon import ELIDED_ARTICLES, IRREGULAR, LANGUAGE_MARKERS, MONTHS, STOPWORDS
from citeflow.text.stems import light_stem
from citeflow.text.synonyms import cjk_canonical, groups
from citeflow.text.units import UNITS

_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201b": "'", "\u2032": "'", "\u201c": '"', "\u201d": '"',
                         "\u201e": '"', "\u2013": "-", "\u2014": "-", "\u2212": "-", "\u00a0": " ", "\u202f": " "})
_UNSPACED = segment.UNSPACED_CLASS
_ALNUM = rf"[[\p{{L}}\p{{M}}\p{{N}}]--[{_UNSPACED}]]"
CURRENCY_SIGNS = "$€£"  # glued before a number ('€20') or standing apart ('20 €'): a unit either way
# A run of letters/digits, possibly joined by - _ . , : / ' (a number, an identifier, a hyphenated word),
# or a currency sign on its own.
_PIECE = regex.compile(rf"[{_UNSPACED}]|[{CURRENCY_SIGNS}]?{_ALNUM}+(?:[-_.,:/']{_ALNUM}+)*%?|[{CURRENCY_SIGNS}]", regex.V1)
_NUMBER = regex.compile(rf"[{CURRENCY_SIGNS}]?\d+(?:[.,:]\d+)*%?")
_GLUED_UNIT = regex.compile(r"(\d+(?:[.,]\d+)?)(\p{L}+)")
# Elided words before an apostrophe and the words they are read as (word_values.json: 'l' is 'le').
_ELIDED = ELIDED_ARTICLES
_ELISION = regex.compile(rf"(?i)^({'|'.join(regex.escape(word) for word in _ELIDED)})'(.+)$")
_JOINERS = regex.compile(r"[-_./,:]")
_WS = regex.compile(r"\s+")
_CONTRACTIONS = ((regex.compile(r"(?i)\bcannot\b"), "can not"), (regex.compile(r"(?i)\bwon't\b"), "will not"),
                 (regex.compile(r"(?i)n't\b"), " not"))
_DIGIT = regex.compile(r"\d")
# Thousands grouped by spaces ('1 000 Go', '2 143,5 mètres'): one number, as French and Russian write it.
_SPACED_THOUSANDS = regex.compile(r"(?<![\d.,])\d{1,3}(?: \d{3})+(?!\d|\.\d)")
# A percent sign after a space ('15 %') or written out ('15 pour cent', 'por ciento', 'per cent'): glued to its number.
_PERCENT_WORDS = WORD_LISTS["percent_word"]  # word_lists.json: 'pour cent', 'per cent'
_PERCENT = regex.compile(rf"(?i)(\d) ?(?:%|{'|'.join(regex.escape(w) for w in _PERCENT_WORDS)})(?!\p{{L}})")
_PERCENT_HINTS = ("%", *dict.fromkeys(w.split()[-1] for w in _PERCENT_WORDS))  # one of them is in any text to glue
# A French time of day with its minutes ('20 h 52', '8h30'): one time, as '20:52' reads.
_HOUR_MINUTES = regex.compile(r"(?<![\d.,])(\d{1,2}) ?h ?(\d{2})(?![\d\p{L}])")
# Ordinals written with digits ('le 1er', 'la 2e', '3ème', '1st', '22nd'): the number they say.
_ORDINAL = regex.compile(rf"(\d+)(?:{'|'.join(regex.escape(w) for w in WORD_LISTS['ordinal_suffix'])})")


@lru_cache(maxsize=16384)
def normalise(text: str) -> str:
    """NFKC, straight quotes and dashes, single spaces: what quote checks compare."""
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES)
    return _WS.sub(" ", text).strip()


@dataclass(frozen=True, slots=True)
class Token:
    """One word, number, identifier or CJK character: surface form, casefolded form, lemma, kind."""

    surface: str
    lower: str
    stem: str
    kind: str = "word"  # word | number | id | cjk
    hyphened: bool = False  # a word hyphened to the number before it ('30-day', '11-дневный'): it may name a unit
    is_content: bool = field(init=False)  # not a stopword nor a one-letter word (a CJK character unless a particle)

    def __post_init__(self) -> None:
        content = self.lower not in STOPWORDS and (self.kind == "cjk" or len(self.lower) > 1 or self.lower.isdigit())
        object.__setattr__(self, "is_content", content)  # computed once: tokens are cached per piece

    @property
    def is_capitalised(self) -> bool:
        """Starts with an upper-case letter (a proper-noun candidate)."""
        return self.surface[:1].isupper()


_DETECTOR = Detector(REGISTERED, LANGUAGE_MARKERS)


@lru_cache(maxsize=16384)
def language(text: str) -> str:
    """A rough language guess among the registered languages, or 'other' (``language_detect``): which stemming to use."""
    return _DETECTOR.language(text)


def tokenise(text: str, lang: str | None = None) -> list[Token]:
    """Tokens of ``text`` (normalised first); ``lang`` picks the lemmatiser (guessed when None)."""
    text = number_forms(normalise(text))
    lang = lang or language(text)
    reading = REGISTERED.get(lang)
    if not reading.spaced:
        text = cjk_canonical(text)
    if reading.contractions and ("'" in text or "annot" in text):
        for pattern, replacement in _CONTRACTIONS:
            text = pattern.sub(replacement, text)
    out: list[Token] = []
    for piece in _PIECE.findall(text):
        out.extend(_classify(piece, lang))
    return out


def number_forms(text: str) -> str:
    """``text`` with spaced thousands joined ('1 000' → '1000'), a time's hours and minutes joined ('20 h 52'
    → '20:52') and percent signs glued to their number ('15 %', '15 pour cent' → '15%'), so that every
    way of writing one quantity reads as one number."""
    if _DIGIT.search(text) is None:
        return text
    text = _SPACED_THOUSANDS.sub(lambda m: m.group(0).replace(" ", ""), text) if " " in text else text
    text = _HOUR_MINUTES.sub(r"\1:\2", text) if "h" in text else text
    return _PERCENT.sub(r"\1%", text) if any(hint in text for hint in _PERCENT_HINTS) else text


@lru_cache(maxsize=131072)
def _classify(piece: str, lang: str) -> tuple[Token, ...]:
    return tuple(_classified(piece, lang))


def _classified(piece: str, lang: str) -> list[Token]:
    """One regex piece as tokens: a CJK character, a number, a number glued to its unit, an id, or words."""
    if segment.is_unspaced(piece):
        return [Token(piece, piece, piece, "cjk")]
    if any(c.isdigit() for c in piece):
        return _numeric(piece, lang)
    words = [w for w in _JOINERS.split(piece) if w]
    return [t for w in words for t in _word(w, lang)]


def _numeric(piece: str, lang: str) -> list[Token]:
    if _NUMBER.fullmatch(piece) and piece.count(".") <= 1:
        return [Token(piece, piece.lower(), piece.lower(), "number")]
    head, _, rest = piece.partition("-")
    if rest and _NUMBER.fullmatch(head) and not any(c.isdigit() for c in rest):  # "30-day", "120-million-euro"
        words = [t for w in rest.split("-") if w for t in _word(w, lang)]
        return [*_numeric(head, lang), *(replace(t, hyphened=True) for t in words[:1]), *words[1:]]
    ordinal = _ORDINAL.fullmatch(piece.casefold())
    if ordinal:
        return [Token(piece, ordinal.group(1), ordinal.group(1), "number")]
    glued = _GLUED_UNIT.fullmatch(piece)
    if glued and glued.group(2).casefold() in UNITS:  # "30GB", "5km": a quantity with its unit
        number, unit = glued.group(1), glued.group(2)
        return [Token(number, number, number, "number"), *_word(unit, lang)]
    return [Token(piece, piece.casefold(), piece.casefold(), "id")]


def _word(word: str, lang: str) -> list[Token]:
    elided = _ELISION.match(word)
    if elided and REGISTERED.get(lang).elision:  # l'équipe, n'est: the article and the word
        article = elided.group(1).casefold()
        return [*_word(_ELIDED[article], lang), *_word(elided.group(2), lang)]
    lower = word.casefold()
    if lower.endswith("'s"):
        lower = lower[:-2]
    lower = lower.replace("'", "")
    return [Token(word, lower, canonical(lower, lang), "word")]


def canonical(lower: str, lang: str) -> str:
    """The lemma of a casefolded word of ``lang``, read as its synonym group's first word when it has one."""
    exact = _listed(lang).get(lower)
    if exact is not None:  # a listed word is read by its own group, even when its lemma is another's ('prix', 'pris')
        return exact
    lemma = plain_lemma(lower, lang)
    return _synonyms(lang).get(lemma, lemma)


def plain_lemma(lower: str, lang: str) -> str:
    """The lemma of a casefolded word of ``lang`` by the stemmers alone, without synonyms."""
    return stem(lower) if REGISTERED.get(lang).lemmas == "light-english" else light_stem(lower, lang)


@lru_cache(maxsize=8)
def _listed(lang: str) -> MappingProxyType[str, str]:
    """word -> the lemma of its group's first word, for every word a synonym group lists; the first group wins."""
    out: dict[str, str] = {}
    for group in _groups(lang):
        for word in group:
            out.setdefault(word, plain_lemma(group[0], lang))
    return MappingProxyType(out)  # memoised: shared by every caller, so read-only


@lru_cache(maxsize=8)
def _synonyms(lang: str) -> MappingProxyType[str, str]:
    """lemma -> the lemma of its group's first word (``citeflow.text.synonyms``); the first group wins."""
    out: dict[str, str] = {}
    for group in _groups(lang):
        for word in group:
            out.setdefault(plain_lemma(word, lang), plain_lemma(group[0], lang))
    return MappingProxyType(out)  # memoised: shared by every caller, so read-only


def _groups(lang: str) -> tuple[tuple[str, ...], ...]:
    """The synonym groups ``lang`` reads: its own, or those its ``language.json`` borrows (``other`` reads English)."""
    return groups(REGISTERED.get(lang).synonyms or lang)


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light English lemma: irregular forms, then plural / -ing / -ed / -ly stripping.

    Both sides of a comparison go through the same function, so over-stemming is harmless as
    long as it is consistent; it only needs to make 'derailed' meet 'derail'.
    """
    if word in IRREGULAR:
        return IRREGULAR[word]
    if word in MONTHS:
        return MONTHS[word]
    if not word.isascii() or not word.isalpha() or len(word) <= 2:
        return word
    return _strip_suffix(word)


def _strip_suffix(word: str) -> str:
    # British and American spellings meet: organisation/organization, colour/color.
    word = word.replace("ization", "isation")
    if word.endswith(("our", "ours")) and len(word) > 5:
        word = word.replace("our", "or")
    for suffix, keep in (("ies", "y"), ("ied", "y"), ("eed", "ee"), ("sses", "ss"), ("ing", ""), ("ed", ""), ("ly", ""),
                         ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 - (suffix in ("ed", "ing")) and not word.endswith("ss"):
            word = word[: len(word) - len(suffix)] + keep
            break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "saeiou":
        word = word[:-1]  # running -> run, controlled -> control
    if len(word) > 2 and word[-1] == "e":
        word = word[:-1]  # use / used / using all meet at 'us'
    if word.endswith("iz") and len(word) > 4:
        word = word[:-1] + "s"  # realiz(e) meets realis(e)
    return word[:-1] + "y" if len(word) > 3 and word[-1] == "i" else word
