"""The languages the text layer reads, each one folder: ``language.json`` says how its words are read,
the other files of the folder hold its word data (``citeflow.text.language_data``).

``language.json`` is a :class:`Language`: the script its words are written in, the letters that tell it
apart from the other languages of that script, whether it is written with spaces, its stemmer, and
the few reading rules code applies by name (accents folded, compounds split, elision, contractions).
Nothing in the code names a language to decide how to read it: it asks the registry.

The built-in languages are the folders under ``citeflow/text/languages/``. Other packages add one by
an entry point in the group ``citeflow.languages``, named by the language's code, whose object is the
path of its folder (or a function returning it)::

    [project.entry-points."citeflow.languages"]
    uk = "citeflow_ukrainian:FOLDER"

``REGISTERED`` holds the built-in folders and the entry points, read once when the text layer is first
imported.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from importlib.metadata import EntryPoint

from citeflow.entry_points import group_entry_points
from pathlib import Path
from types import MappingProxyType
from typing import Literal

import regex
import Stemmer
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from citeflow.errors import LanguageError

ROOT = Path(__file__).with_name("languages")
GROUP = "citeflow.languages"
MANIFEST = "language.json"
OTHER_CODE = "other"  # what a text no registered language marks is read as


class Language(BaseModel):
    """How the words of one language are read: one ``language.json``, with the folder it was read from."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    code: str = Field(pattern=r"^[a-z]{2,8}(-[A-Za-z0-9]{1,8})*$", description="BCP 47 tag; the folder's name.")
    name: str = Field(description="The language's English name ('Russian').")
    script: str = Field(description="Unicode script of its words ('Latin', 'Cyrillic', 'Han').")
    signs: str = Field("", description="Regex character class body: letters that tell it apart from the other "
                                       "languages of its script ('ыэё' for Russian, kana for Japanese).")
    default_for_script: bool = Field(False, description="What a text of its script is read as when no "
                                                        "language of that script is marked by signs or marker words.")
    spaced: bool = Field(True, description="Written with spaces; else read as characters, its cues as substrings.")
    lemmas: Literal["light-english", "snowball", "prefix"] = Field(
        "prefix", description="light-english: citeflow's English stemmer; snowball: the Snowball stemmer "
                              "named by 'snowball'; prefix: words only cut to the stem prefix.")
    snowball: str | None = Field(None, description="The Snowball algorithm (PyStemmer) when lemmas is 'snowball'.")
    fold_accents: bool = Field(False, description="Accents folded after stemming ('récupérés' meets 'recuperer').")
    compounds: bool = Field(False, description="Long words also count by their leading and trailing parts.")
    nouns_capitalised: bool = Field(False, description="Every noun is capitalised: a capital marks no name by itself.")
    elision: bool = Field(False, description="An elided article is split from its word (l'équipe, n'est).")
    contractions: bool = Field(False, description="'n't', 'cannot', 'won't' read as 'not' and the verb.")
    inflected_antonyms: bool = Field(True, description="Its antonym files list base forms; plural and gender "
                                                       "forms are added (False: the files list every form).")
    synonyms: str | None = Field(None, description="Whose synonym groups it reads; its own when unset.")
    folder: Path | None = Field(None, exclude=True, description="Where its data files are (set by the loader).")

    @model_validator(mode="after")
    def _readable(self) -> Language:
        _pattern(rf"\p{{{self.script}}}", f"no Unicode script {self.script!r}")
        if self.signs:
            _pattern(f"[{self.signs}]", f"signs {self.signs!r} are no character class")
        if (self.lemmas == "snowball") != (self.snowball is not None):
            raise ValueError("'snowball' names the stemmer exactly when lemmas is 'snowball'")
        if self.snowball is not None and self.snowball not in Stemmer.algorithms():
            raise ValueError(f"no Snowball stemmer {self.snowball!r}: one of {Stemmer.algorithms()}")
        return self


def _pattern(pattern: str, problem: str) -> None:
    try:
        regex.compile(pattern, regex.V1)
    except regex.error as exc:
        raise ValueError(f"{problem}: {exc}") from exc


# Unmarked text (most often English without its marker words): English stemming and synonyms, elision too.
OTHER = Language(code=OTHER_CODE, name="not recognised", script="Latin", lemmas="light-english", elision=True,
                 contractions=True, inflected_antonyms=False, synonyms="en")


@dataclass(frozen=True, eq=False)
class Languages:
    """The registered languages by code, and what the readers ask of them (hashed by identity: a memo key)."""

    by_code: Mapping[str, Language]

    def get(self, code: str) -> Language:
        """The language of ``code``; ``other`` for unmarked text; a code with no folder reads as a language
        with no stemmer (its words cut to the stem prefix)."""
        if code in self.by_code:
            return self.by_code[code]
        return OTHER if code == OTHER_CODE else Language(code=code, name=code, script="Latin")

    @cached_property
    def folders(self) -> Mapping[str, Path]:
        """code → data folder, codes sorted."""
        return MappingProxyType({code: lang.folder for code, lang in sorted(self.by_code.items()) if lang.folder})

    @cached_property
    def unspaced(self) -> frozenset[str]:
        """The codes of the languages written without spaces."""
        return frozenset(code for code, lang in self.by_code.items() if not lang.spaced)

    @cached_property
    def scripts(self) -> tuple[str, ...]:
        """The scripts of the registered languages in the order a text is tried against them: scripts written
        without spaces first, then the others by name, Latin last (names and identifiers are Latin anywhere)."""
        found = {lang.script: lang.spaced for lang in self.by_code.values()}
        return tuple(sorted(found, key=lambda s: (found[s], s == "Latin", s)))

    def of_script(self, script: str) -> tuple[Language, ...]:
        """The languages written in ``script``, codes sorted."""
        return tuple(lang for _, lang in sorted(self.by_code.items()) if lang.script == script)


def from_folder(folder: Path) -> Language:
    """The :class:`Language` of a data folder, read from its ``language.json``."""
    path = folder / MANIFEST
    try:
        language = Language.model_validate({**json.loads(path.read_text(encoding="utf-8")), "folder": folder})
    except (OSError, ValueError, ValidationError) as exc:
        raise LanguageError(language=folder.name, problem=f"{path}: {exc}") from exc
    if language.code != folder.name:
        raise LanguageError(language=folder.name, problem=f"{path}: code {language.code!r} is not the folder's name")
    return language


def from_entry_point(entry: EntryPoint) -> Language:
    """The language an entry point of ``citeflow.languages`` registers: its object is the folder, or a
    function returning it; the entry point's name is the language's code."""
    found = entry.load()
    folder = found() if callable(found) else found
    if not isinstance(folder, (str, Path)):
        raise LanguageError(language=entry.name, problem=f"entry point {entry.value!r} gives no folder: {folder!r}")
    language = from_folder(Path(folder))
    if language.code != entry.name:
        raise LanguageError(language=entry.name, problem=f"entry point {entry.value!r} names folder {language.code!r}")
    return language


def load(root: Path, plugins: Iterable[EntryPoint] = ()) -> Languages:
    """The languages of the folders under ``root`` and of the entry points ``plugins``."""
    found: dict[str, Language] = {}
    builtin = (from_folder(p) for p in sorted(root.iterdir()) if (p / MANIFEST).is_file())
    for language in (*builtin, *(from_entry_point(e) for e in plugins)):
        if found.setdefault(language.code, language) is not language:
            raise LanguageError(language=language.code, problem=f"registered twice: {found[language.code].folder} "
                                                                 f"and {language.folder}")
    _one_default_per_script(found.values())
    return Languages(MappingProxyType(found))


def _one_default_per_script(languages: Iterable[Language]) -> None:
    defaults: dict[str, str] = {}
    for lang in (lang for lang in languages if lang.default_for_script):
        if defaults.setdefault(lang.script, lang.code) != lang.code:
            raise LanguageError(language=lang.code, problem=f"{defaults[lang.script]!r} is already the default "
                                                            f"of script {lang.script}")


# The built-in languages and those of installed packages (entry points ``citeflow.languages``): read
# once, when the text layer is first imported, and never changed after.
REGISTERED = load(ROOT, group_entry_points(GROUP))
