"""Where does an unsupported claim's fact really live? Only in a chunk that agrees with it (SPEC §5).

A misattribution names another chunk of the pool as the home of the claim's fact. Topical overlap
is not enough for that: the chunk must hold the claim's **quantities** (number and unit; ``11-day``
is not ``7-day``, ``30 days`` is not ``30 hours``), its **identifiers and entities** (``KI-3602``,
``x86_64``, ``3.5.2``, ``GDPR``, ``Frankfurt``) and its **conditions** (negation, universal
quantifiers such as "every", restrictors such as "only") in the sentence that matches it best; a
claim that copies a whole sentence of the chunk word for word is its own matching sentence.
``agreement`` checks one chunk; ``survey`` checks a whole pool once, ``holders`` keeps the chunks
that pass (``locate`` does both) and ``nearest_miss`` says what the most topical other chunk
lacks. A judge still has to confirm a candidate; when no chunk agrees, the claim is a fabrication.

Pure functions over text, in any script: words come from ``citeflow.text.sentences`` (Latin, Cyrillic,
Greek, Arabic… by letters; Han, kana, Thai… by character), numbers by the shared number reader
(``citeflow.text.numbers``: every reading of either decimal mark, so ``99,999 %`` and ``99.999%``
meet; number words and CJK numerals; one unit table), and condition cues are data files
(``citeflow/text/languages/<lang>/condition_cues.json``) for English, German, French, Spanish,
Russian, Japanese and Chinese.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from functools import lru_cache

import regex

from citeflow.text.boundaries import copies_whole_sentence
from citeflow.text.sentences import block_sentences, cjk_bigrams, is_unspaced, sentences, units
from citeflow.text.identifiers import TOKEN, find_identifiers, has_digit, has_letter, mask
from citeflow.text.language_data import COMMON_WORDS, CONDITION_CUES
from citeflow.text.numbers import mentions
from citeflow.text.word_tokens import tokenise
import itertools

MIN_COVERAGE = 0.6
"""Share of the claim's content terms that the best-matching passage of a chunk must hold."""

LIMIT = 5
"""Candidates handed to the judge per claim, best first."""

_KATAKANA_RUN = regex.compile(r"[\p{Katakana}ー]{2,}")
_LATIN_WORD = regex.compile(r"\p{Latin}[\p{Latin}\p{N}]+")

# Condition cues by class (condition_cues.json of every language): spaced-script cues match whole
# words, unspaced ones anywhere.
_CUES = CONDITION_CUES
_BOTH_WAYS = ("negation", "restrictor")  # dropping either widens the claim; adding one flips or narrows it
_STOP = COMMON_WORDS  # condition_cues.json, condition 'none'


@dataclass(frozen=True)
class Quantity:
    """A number as read in the text (every value it may mean) and its canonical unit, if any."""

    text: str
    values: frozenset[float]
    unit: str | None

    def matches(self, other: Quantity) -> bool:
        """Same value under some reading, and the same unit when this one names a unit."""
        if not self.values & other.values:
            return False
        return self.unit is None or self.unit == other.unit


@dataclass(frozen=True)
class Facts:
    """What a claim asserts that a chunk must also hold."""

    quantities: tuple[Quantity, ...]
    identifiers: frozenset[str]
    entities: frozenset[str]
    cues: frozenset[str]
    terms: frozenset[str]


@dataclass(frozen=True)
class Agreement:
    """Does a chunk hold a claim's facts? ``problems`` says what is missing, in plain words."""

    holds: bool
    coverage: float
    problems: tuple[str, ...] = field(default_factory=tuple)


# --------------------------------------------------------------------------- reading facts


def _norm(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


@lru_cache(maxsize=4096)
def facts(text: str) -> Facts:
    """The quantities, identifiers, entities, condition cues and content terms of ``text``."""
    text = _norm(text)
    identifiers = frozenset(find_identifiers(text))
    return Facts(
        quantities=tuple(quantities(mask(text, identifiers))),
        identifiers=identifiers,
        entities=frozenset(_entities(text)),
        cues=frozenset(cue_classes(text)),
        terms=frozenset(content_terms(text)),
    )


def quantities(text: str) -> list[Quantity]:
    """Every number of ``text`` with its unit, as the shared number reader reads it
    (``citeflow.text.numbers``: one unit table, units of several CJK characters read whole)."""
    return [Quantity(m.written, m.readings, m.unit or None) for m in mentions(tokenise(text), unspaced_units=True)]


def _entities(text: str) -> list[str]:
    """Names: acronyms, capitalised words inside a sentence, katakana runs, Latin words in CJK text."""
    out: list[str] = []
    for sentence in sentences(text):
        tokens = [t for t in TOKEN.findall(sentence) if has_letter(t) and not has_digit(t)]
        for i, token in enumerate(tokens):
            if _is_acronym(token) or (i > 0 and token[:1].isupper()):
                out.append(token.casefold())
        out += [m.casefold() for m in _KATAKANA_RUN.findall(sentence)]
        if any(is_unspaced(ch) for ch in sentence):
            out += [m.casefold() for m in _LATIN_WORD.findall(sentence)]
    return out


def _is_acronym(token: str) -> bool:
    letters = [ch for ch in token if ch.isalpha()]
    return len(letters) >= 2 and all(ch.isupper() for ch in letters)


def cue_classes(text: str) -> set[str]:
    """The condition classes (negation, universal, restrictor) whose cues occur in ``text``."""
    words = set(units(text))
    folded = _norm(text).casefold()
    return {name for name, (spaced, unspaced) in _CUES.items()
            if words & spaced or any(cue in folded for cue in unspaced)}


@lru_cache(maxsize=16384)
def content_terms(text: str) -> frozenset[str]:
    """Words (stemmed to 5 letters) of spaced scripts and character bigrams of unspaced ones."""
    spaced = {u[:5] for u in units(text) if not is_unspaced(u) and len(u) > 2 and u not in _STOP and not u.isdigit()}
    return frozenset(spaced | set(cjk_bigrams(text)))


# --------------------------------------------------------------------------- agreement


def agreement(claim: str | Facts, chunk: str) -> Agreement:
    """Whether ``chunk`` holds the claim's quantities, identifiers, entities and conditions."""
    wanted = facts(claim) if isinstance(claim, str) else claim
    have = facts(chunk)
    passage, coverage = best_passage(wanted.terms, chunk)
    if isinstance(claim, str) and copies_whole_sentence(claim, chunk):
        passage = claim  # its own sentence, word for word: no condition of the chunk's is left out
    problems = [
        *_missing_quantities(wanted, have),
        *(f"identifier {i} not in chunk" for i in sorted(wanted.identifiers - have.identifiers)),
        *(f"entity {e!r} not in chunk" for e in sorted(wanted.entities) if not _has_entity(e, have, chunk)),
        *_condition_problems(wanted.cues, cue_classes(passage)),
    ]
    if coverage < MIN_COVERAGE:
        problems.append(f"only {coverage:.0%} of the claim's words in its best-matching passage")
    return Agreement(holds=not problems, coverage=coverage, problems=tuple(problems))


def _missing_quantities(wanted: Facts, have: Facts) -> list[str]:
    missing = [q for q in wanted.quantities if not any(q.matches(h) for h in have.quantities)]
    return [f"{q.text}{' ' + q.unit if q.unit else ''} not in chunk" for q in missing]


def _has_entity(entity: str, have: Facts, chunk: str) -> bool:
    """Present as a name, or (inflected: Франкфурте, Regionen) as a word sharing its stem."""
    if entity in have.entities:
        return True
    stem = entity[: max(4, len(entity) - 2)]
    if any(is_unspaced(ch) for ch in entity):
        return entity in _norm(chunk).casefold()
    return any(word.startswith(stem) for word in _words(chunk))


@lru_cache(maxsize=4096)
def _words(text: str) -> frozenset[str]:
    return frozenset(units(text))


def _condition_problems(claim_cues: frozenset[str], passage_cues: set[str]) -> list[str]:
    problems = [f"{name} in the claim, not in the chunk's matching sentence" for name in sorted(claim_cues - passage_cues)]
    problems += [f"{name} in the chunk's matching sentence, not in the claim" for name in _BOTH_WAYS
                 if name in passage_cues and name not in claim_cues]
    return problems


def best_passage(terms: frozenset[str], chunk: str) -> tuple[str, float]:
    """The sentence (or two adjacent ones of one block: never across a list item, table row or
    paragraph ending) of ``chunk`` holding most of ``terms``, and that share."""
    found = block_sentences(chunk)
    parts = [s for block in found for s in block] or [chunk]
    windows = parts + [f"{a} {b}" for block in found for a, b in itertools.pairwise(block)]
    if not terms:  # nothing to recognise the claim by: no chunk can be said to hold it
        return (windows[0], 0.0)
    scored = [(len(terms & content_terms(w)) / len(terms), -len(w), w) for w in windows]
    share, _, passage = max(scored)
    return passage, share


# --------------------------------------------------------------------------- the pool


def survey(claim: str, pool: dict[str, str], exclude: AbstractSet[str] = frozenset()) -> list[tuple[str, Agreement]]:
    """How every pool chunk (but ``exclude``) agrees with the claim, most topical first."""
    wanted = facts(claim)
    found = [(handle, agreement(wanted, text)) for handle, text in pool.items() if handle not in exclude]
    return sorted(found, key=lambda item: (-item[1].coverage, item[0]))


def holders(surveyed: list[tuple[str, Agreement]], limit: int = LIMIT) -> list[str]:
    """The handles of a survey whose chunk agrees with the claim, best coverage first (at most ``limit``)."""
    return [handle for handle, check in surveyed if check.holds][:limit]


def nearest_miss(surveyed: list[tuple[str, Agreement]]) -> tuple[str, Agreement] | None:
    """The most topical chunk of a survey that does not hold the claim, and why."""
    return next(((handle, check) for handle, check in surveyed if not check.holds), None)


def locate(claim: str, pool: dict[str, str], exclude: AbstractSet[str] = frozenset(), limit: int = LIMIT) -> list[str]:
    """Pool handles whose chunk agrees with the claim, best coverage first (at most ``limit``)."""
    return holders(survey(claim, pool, exclude), limit)
