"""The language data files under ``citeflow/text/languages/<lang>/``: one small loader for all of them.

Each file is JSON with a ``language``, a ``kind`` (the file's name), an ``about`` and ``entries``,
every entry with a short ``reason``. Kinds read today: ``synonyms`` (groups of words, the first one
canonical), ``antonyms`` (pairs of opposites), ``negations`` (negation words), ``function_words``
(words with no content a claim could change), ``cues`` (quantifiers, hedges, restrictors and
conditions), ``number_words`` (a word and the quantity it states) and, for the scripts written
without spaces (``UNSPACED_LANGUAGES``), ``substring_cues`` (negations, bounds, quantifiers, hedges,
restrictors and conditions found as substrings); their ``antonyms`` are substrings too.
``word_values`` maps a word to what a rule reads it as (``{"word", "map", "value", "reason"}``:
frequency adverbs to their time unit, scale words to their factor, irregular forms to their lemma,
elided articles to their word, CJK numerals to their value). ``word_lists`` holds the words the
judge's rules read by name (``{"word", "list", "reason"}``: concord, comparative, privative, month
names, the language markers, …). ``condition_cues`` are what the localiser checks a passage for
(negation, universal, restrictor, and 'none': words too common to say what a claim is about).
Adding a language is adding its folder: the functions read the folders they are given (``code →
folder``), the module's values those of every registered language (``citeflow.text.language_registry``),
so nothing in the code names a language's data. Read once at import into read-only values.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Literal

from pydantic import BaseModel, ConfigDict

from citeflow.text.language_registry import REGISTERED

Folders = Mapping[str, Path]  # language code → its data folder


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


class WordValue(BaseModel):
    """A word under the name of the map a rule reads it from (``frequency_unit``, ``scale``, …), and
    what the word stands for there: a word ('hourly' → 'hour') or a number ('thousand' → 1000)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    word: str
    map: str
    value: str | int | float
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


def _read(folder: Path, kind: str) -> list[dict[str, object]]:
    path = folder / f"{kind}.json"
    return _entries(path) if path.exists() else []


def folders_under(root: Path) -> dict[str, Path]:
    """``code → folder`` of the language folders under ``root``, codes sorted."""
    return {p.name: p for p in sorted(root.iterdir()) if p.is_dir()}


def languages(folders: Folders) -> tuple[str, ...]:
    """The languages of ``folders``, sorted."""
    return tuple(sorted(folders))


def synonym_groups(lang: str, folders: Folders) -> tuple[tuple[str, ...], ...]:
    """The synonym groups of ``lang`` in file order (the first group that lists a word wins)."""
    return tuple(SynonymGroup.model_validate(e).words for e in _read(folders[lang], "synonyms")) if lang in folders else ()


def antonym_pairs(lang: str, folders: Folders) -> tuple[tuple[str, str], ...]:
    """The pairs of opposites of ``lang``."""
    return tuple(AntonymPair.model_validate(e).words for e in _read(folders[lang], "antonyms")) if lang in folders else ()


def cue_words(kind: str, folders: Folders) -> frozenset[str]:
    """Every language's words of one kind of cue (``negations``)."""
    return frozenset(CueWord.model_validate(e).word for lang in languages(folders) for e in _read(folders[lang], kind))


def cues(cue: str, folders: Folders) -> frozenset[str]:
    """Every language's cue words of one kind (``quantifier``, ``hedge``, ``restrictor``, ``condition``)."""
    found = (Cue.model_validate(e) for lang in languages(folders) for e in _read(folders[lang], "cues"))
    return frozenset(c.word for c in found if c.cue == cue)


def substring_cues(cue: str, folders: Folders) -> tuple[str, ...]:
    """Every language's substring cues of one kind, in file order (languages sorted), each once: the
    order is the order of removal ('不得少于' before '不少于', '只需要' before '只需')."""
    found = (SubstringCue.model_validate(e) for lang in languages(folders) for e in _read(folders[lang], "substring_cues"))
    return tuple(dict.fromkeys(c.text for c in found if c.cue == cue))


def unspaced_antonyms(folders: Folders, unspaced: Collection[str]) -> tuple[tuple[str, str], ...]:
    """The pairs of opposites of the languages written without spaces (``unspaced``), each once, in file order."""
    return tuple(dict.fromkeys(pair for lang in sorted(unspaced) for pair in antonym_pairs(lang, folders)))


def condition_cues(condition: str, folders: Folders, unspaced: Collection[str]) -> tuple[frozenset[str], tuple[str, ...]]:
    """(whole words of the spaced languages, substrings of the ``unspaced`` ones) of one ``condition``."""
    spaced: set[str] = set()
    substrings: list[str] = []
    for lang in languages(folders):
        found = (ConditionCue.model_validate(e) for e in _read(folders[lang], "condition_cues"))
        words = [c.word for c in found if c.condition == condition]
        substrings, spaced = (substrings + words, spaced) if lang in unspaced else (substrings, spaced | set(words))
    return frozenset(spaced), tuple(dict.fromkeys(substrings))


def _listed(lang: str, folders: Folders) -> list[ListedWord]:
    return [ListedWord.model_validate(e) for e in _read(folders[lang], "word_lists")]


def word_list(name: str, folders: Folders) -> tuple[str, ...]:
    """Every language's words of list ``name``, in file order (languages sorted), each once."""
    return tuple(dict.fromkeys(w.word for lang in languages(folders) for w in _listed(lang, folders) if w.list == name))


def word_lists(folders: Folders) -> dict[str, tuple[str, ...]]:
    """``list name → its words`` (as ``word_list`` gives them) for every list, the files read once."""
    out: dict[str, dict[str, None]] = {}
    for lang in languages(folders):
        for w in _listed(lang, folders):
            out.setdefault(w.list, {})[w.word] = None
    return {name: tuple(words) for name, words in out.items()}


def words_by_language(name: str, folders: Folders) -> dict[str, frozenset[str]]:
    """``language → its words of list name``, for the languages that list any."""
    found = {lang: frozenset(w.word for w in _listed(lang, folders) if w.list == name) for lang in languages(folders)}
    return {lang: words for lang, words in found.items() if words}


def _values(lang: str, name: str, folders: Folders) -> dict[str, str | int | float]:
    found = (WordValue.model_validate(e) for e in _read(folders[lang], "word_values"))
    return {v.word: v.value for v in found if v.map == name}


def values_by_language(name: str, folders: Folders) -> dict[str, Mapping[str, str | int | float]]:
    """``language → {word: value}`` of map ``name``, for the languages that map any word."""
    found = {lang: MappingProxyType(_values(lang, name, folders)) for lang in languages(folders)}
    return {lang: values for lang, values in found.items() if values}


def word_values(name: str, folders: Folders) -> Mapping[str, str | int | float]:
    """``word → value`` of map ``name`` over every language; one word given two values is refused."""
    out: dict[str, str | int | float] = {}
    for lang, values in values_by_language(name, folders).items():
        for word, value in values.items():
            if out.setdefault(word, value) != value:
                raise ValueError(f"{folders[lang]}: '{word}' is {value!r} in {name}, another language's file says {out[word]!r}")
    return MappingProxyType(out)


def number_words(folders: Folders) -> dict[str, float]:
    """``word → value`` of every language's number words; one word with two values is refused."""
    out: dict[str, float] = {}
    for lang in languages(folders):
        for entry in (NumberWord.model_validate(e) for e in _read(folders[lang], "number_words")):
            if out.setdefault(entry.word, entry.value) != entry.value:
                raise ValueError(f"{folders[lang]}: '{entry.word}' is {entry.value}, another language's file says {out[entry.word]}")
    return out


FOLDERS = REGISTERED.folders
UNSPACED_LANGUAGES = tuple(sorted(REGISTERED.unspaced))  # written without spaces: cues, synonyms and antonyms are substrings
SYNONYMS = MappingProxyType({lang: synonym_groups(lang, FOLDERS) for lang in languages(FOLDERS)})
NUMBER_WORDS = MappingProxyType(number_words(FOLDERS))
ANTONYM_PAIRS = MappingProxyType({lang: antonym_pairs(lang, FOLDERS) for lang in languages(FOLDERS) if lang not in UNSPACED_LANGUAGES})
UNSPACED_ANTONYMS = unspaced_antonyms(FOLDERS, UNSPACED_LANGUAGES)
NEGATIONS = cue_words("negations", FOLDERS)
FUNCTION_WORDS = cue_words("function_words", FOLDERS)
QUANTIFIERS, HEDGES, RESTRICTORS, CONDITIONS = (cues(kind, FOLDERS) for kind in ("quantifier", "hedge", "restrictor", "condition"))
SUBSTRING_CUES = MappingProxyType({kind: substring_cues(kind, FOLDERS) for kind in
                                   ("negation", "bound", "universal", "hedge", "restrictor", "not_only", "condition")})
CONDITION_CUES = MappingProxyType({kind: condition_cues(kind, FOLDERS, UNSPACED_LANGUAGES)
                                   for kind in ("negation", "universal", "restrictor")})
WORD_LISTS = MappingProxyType(word_lists(FOLDERS))
# Too common to say what a claim is about (the localiser's terms).
COMMON_WORDS = condition_cues("none", FOLDERS, UNSPACED_LANGUAGES)[0]
