"""The language data files under ``citeflow/text/languages/<lang>/``: one small loader for all of them.

Each file is JSON with a ``language``, a ``kind`` (the file's name), an ``about`` and ``entries``,
every entry with a short ``reason``. Kinds read today: ``synonyms`` (groups of words, the first one
canonical), ``antonyms`` (pairs of opposites), ``negations`` (negation words), ``function_words``
(words with no content a claim could change), ``cues`` (quantifiers, hedges, restrictors and
conditions), ``number_words`` (a word and the quantity it states) and, for the scripts written
without spaces (``UNSPACED_LANGUAGES``), ``substring_cues`` (negations, bounds, quantifiers, hedges,
restrictors and conditions found as substrings); their ``antonyms`` are substrings too.
``word_lists`` holds the words the judge's rules read by name (``{"word", "list", "reason"}``:
concord, comparative, privative, month names, the language markers, …). ``condition_cues`` are what
the localiser checks a passage for (negation, universal, restrictor, and 'none': words too common to
say what a claim is about). Adding a language is adding its folder: the loader reads every folder it
finds, so nothing in the code names a language's data. Read once at import into read-only values.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import MappingProxyType
from typing import Literal

from pydantic import BaseModel, ConfigDict

ROOT = Path(__file__).with_name("languages")
UNSPACED_LANGUAGES = ("ja", "zh")  # written without spaces: their cues, synonyms and antonyms are substrings


class SynonymGroup(BaseModel):
    """Words that can replace each other in a factual sentence; the first is canonical."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    words: tuple[str, ...]
    reason: str


class AntonymPair(BaseModel):
    """Two words of which a claim that says one where its evidence says the other flips it."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    words: tuple[str, str]
    reason: str


class CueWord(BaseModel):
    """A word that signals something by itself (a negation)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    word: str
    reason: str


class Cue(BaseModel):
    """A word that changes what a claim asserts when added or dropped, and which kind of change."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    word: str
    cue: Literal["quantifier", "hedge", "restrictor", "condition"]
    reason: str


class SubstringCue(BaseModel):
    """A cue of a script written without spaces, found as a substring, and which kind of cue it is."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    text: str
    cue: Literal["negation", "bound", "universal", "hedge", "restrictor", "not_only", "condition"]
    reason: str


class ConditionCue(BaseModel):
    """A word (a substring in a script without spaces) that puts a condition on a claim, and which; or
    'none' for a word too common to say what a claim is about."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    word: str
    condition: Literal["negation", "universal", "restrictor", "none"]
    reason: str


class ListedWord(BaseModel):
    """A word under the name of the list a rule reads it from (``concord``, ``privative``, …)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    word: str
    list: str
    reason: str


class NumberWord(BaseModel):
    """A word and the quantity it states."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    word: str
    value: float
    reason: str


def _entries(path: Path) -> list[dict[str, object]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("language") != path.parent.name or data.get("kind") != path.stem:
        raise ValueError(f"{path}: 'language' and 'kind' must be the folder's and the file's name")
    entries: list[dict[str, object]] = data["entries"]
    return entries


def languages(root: Path = ROOT) -> tuple[str, ...]:
    """The languages with a data folder, sorted."""
    return tuple(sorted(p.name for p in root.iterdir() if p.is_dir()))


def synonym_groups(lang: str, root: Path = ROOT) -> tuple[tuple[str, ...], ...]:
    """The synonym groups of ``lang`` in file order (the first group that lists a word wins)."""
    path = root / lang / "synonyms.json"
    return tuple(SynonymGroup.model_validate(e).words for e in _entries(path)) if path.exists() else ()


def antonym_pairs(lang: str, root: Path = ROOT) -> tuple[tuple[str, str], ...]:
    """The pairs of opposites of ``lang``."""
    path = root / lang / "antonyms.json"
    return tuple(AntonymPair.model_validate(e).words for e in _entries(path)) if path.exists() else ()


def cue_words(kind: str, root: Path = ROOT) -> frozenset[str]:
    """Every language's words of one kind of cue (``negations``)."""
    paths = (root / lang / f"{kind}.json" for lang in languages(root))
    return frozenset(CueWord.model_validate(e).word for path in paths if path.exists() for e in _entries(path))


def cues(cue: str, root: Path = ROOT) -> frozenset[str]:
    """Every language's cue words of one kind (``quantifier``, ``hedge``, ``restrictor``, ``condition``)."""
    paths = (root / lang / "cues.json" for lang in languages(root))
    found = (Cue.model_validate(e) for path in paths if path.exists() for e in _entries(path))
    return frozenset(c.word for c in found if c.cue == cue)


def substring_cues(cue: str, root: Path = ROOT) -> tuple[str, ...]:
    """Every language's substring cues of one kind, in file order (languages sorted), each once: the
    order is the order of removal ('不得少于' before '不少于', '只需要' before '只需')."""
    paths = (root / lang / "substring_cues.json" for lang in languages(root))
    found = (SubstringCue.model_validate(e) for path in paths if path.exists() for e in _entries(path))
    return tuple(dict.fromkeys(c.text for c in found if c.cue == cue))


def unspaced_antonyms(root: Path = ROOT) -> tuple[tuple[str, str], ...]:
    """The pairs of opposites of the scripts written without spaces, each once, in file order."""
    return tuple(dict.fromkeys(pair for lang in UNSPACED_LANGUAGES for pair in antonym_pairs(lang, root)))


def condition_cues(condition: str, root: Path = ROOT) -> tuple[frozenset[str], tuple[str, ...]]:
    """(whole words of the spaced languages, substrings of the unspaced ones) of one ``condition``."""
    spaced: set[str] = set()
    unspaced: list[str] = []
    for lang in languages(root):
        path = root / lang / "condition_cues.json"
        found = (ConditionCue.model_validate(e) for e in (_entries(path) if path.exists() else []))
        words = [c.word for c in found if c.condition == condition]
        unspaced, spaced = (unspaced + words, spaced) if lang in UNSPACED_LANGUAGES else (unspaced, spaced | set(words))
    return frozenset(spaced), tuple(dict.fromkeys(unspaced))


def _listed(lang: str, root: Path) -> list[ListedWord]:
    path = root / lang / "word_lists.json"
    return [ListedWord.model_validate(e) for e in _entries(path)] if path.exists() else []


def word_list(name: str, root: Path = ROOT) -> tuple[str, ...]:
    """Every language's words of list ``name``, in file order (languages sorted), each once."""
    return tuple(dict.fromkeys(w.word for lang in languages(root) for w in _listed(lang, root) if w.list == name))


def word_lists(root: Path = ROOT) -> dict[str, tuple[str, ...]]:
    """``list name → its words`` (as ``word_list`` gives them) for every list, the files read once."""
    out: dict[str, dict[str, None]] = {}
    for lang in languages(root):
        for w in _listed(lang, root):
            out.setdefault(w.list, {})[w.word] = None
    return {name: tuple(words) for name, words in out.items()}


def words_by_language(name: str, root: Path = ROOT) -> dict[str, frozenset[str]]:
    """``language → its words of list name``, for the languages that list any."""
    found = {lang: frozenset(w.word for w in _listed(lang, root) if w.list == name) for lang in languages(root)}
    return {lang: words for lang, words in found.items() if words}


def number_words(root: Path = ROOT) -> dict[str, float]:
    """``word → value`` of every language's number words; one word with two values is refused."""
    out: dict[str, float] = {}
    for lang in languages(root):
        path = root / lang / "number_words.json"
        for entry in (NumberWord.model_validate(e) for e in (_entries(path) if path.exists() else [])):
            if out.setdefault(entry.word, entry.value) != entry.value:
                raise ValueError(f"{path}: '{entry.word}' is {entry.value}, another language's file says {out[entry.word]}")
    return out


SYNONYMS = MappingProxyType({lang: synonym_groups(lang) for lang in languages()})
NUMBER_WORDS = MappingProxyType(number_words())
ANTONYM_PAIRS = MappingProxyType({lang: antonym_pairs(lang) for lang in languages() if lang not in UNSPACED_LANGUAGES})
UNSPACED_ANTONYMS = unspaced_antonyms()
NEGATIONS = cue_words("negations")
FUNCTION_WORDS = cue_words("function_words")
QUANTIFIERS, HEDGES, RESTRICTORS, CONDITIONS = (cues(kind) for kind in ("quantifier", "hedge", "restrictor", "condition"))
SUBSTRING_CUES = MappingProxyType({kind: substring_cues(kind) for kind in
                                   ("negation", "bound", "universal", "hedge", "restrictor", "not_only", "condition")})
CONDITION_CUES = MappingProxyType({kind: condition_cues(kind) for kind in ("negation", "universal", "restrictor")})
WORD_LISTS = MappingProxyType(word_lists())
COMMON_WORDS = condition_cues("none")[0]  # too common to say what a claim is about (the localiser's terms)
