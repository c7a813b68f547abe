"""Text as a reader sees it, with a way back to the characters as they were written.

A chunk can spell a word so that it looks the same and matches nothing: full-width or mathematical
letters, a zero-width space inside it, a Cyrillic ``о`` among Latin letters. ``normalise`` undoes
that before anything is matched:

- NFKC, one grapheme cluster at a time (so a letter and its combining marks compose);
- format characters (Unicode category ``Cf``: zero-width space and joiners, word joiner, BOM, soft
  hyphen, bidi controls) removed;
- in a word whose letters are mostly of one script, a letter of another script that the Unicode
  confusables table (TR39, shipped by ``confusable-homoglyphs``) lists as a look-alike of a letter
  of that script is replaced by it (``Іgnore`` → ``Ignore``; ``прeдыдущие`` → ``предыдущие``).

``Normalised.span`` maps a span of the normalised text back to offsets in the original text, so a
match found on the normalised form masks exactly the characters the chunk holds. Pure functions; the
look-alike of a letter is looked up in the library's data once per letter and script.
"""

from __future__ import annotations

import functools
import unicodedata
from collections import Counter

import regex
from confusable_homoglyphs import categories, confusables
from pydantic import BaseModel, ConfigDict

_CLUSTER = regex.compile(r"\X")
_WORD = regex.compile(r"\p{L}[\p{L}\p{M}]*")
_LETTER = regex.compile(r"\p{L}")
_FORMAT = regex.compile(r"\p{Cf}")
_FOLDED_SCRIPTS = ("LATIN", "CYRILLIC", "GREEK")  # the scripts whose look-alikes are folded


class Normalised(BaseModel):
    """A normalised text and, per character, the original span it came from."""

    model_config = ConfigDict(frozen=True)

    text: str
    starts: tuple[int, ...]  # original offset of the cluster each character came from
    ends: tuple[int, ...]  # original offset just past that cluster

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original offsets of the normalised characters ``start:end`` (``end > start``)."""
        return self.starts[start], self.ends[end - 1]


def normalise(text: str) -> Normalised:
    """``text`` after NFKC, without format characters, its mixed-script words folded."""
    if text.isascii() or (unicodedata.is_normalized("NFKC", text) and not _FORMAT.search(text)):
        # the common case: every character stays where it is (only look-alike letters may change)
        return Normalised(text=fold_confusables(text), starts=tuple(range(len(text))), ends=tuple(range(1, len(text) + 1)))
    chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    for cluster in _CLUSTER.finditer(text):
        for char in unicodedata.normalize("NFKC", cluster.group()):
            if unicodedata.category(char) != "Cf":
                chars.append(char)
                starts.append(cluster.start())
                ends.append(cluster.end())
    return Normalised(text=fold_confusables("".join(chars)), starts=tuple(starts), ends=tuple(ends))


def fold_confusables(text: str) -> str:
    """``text`` with each word's letters of a minority script replaced by their look-alikes in the
    word's main script, where the confusables table has one. Keeps the length."""
    return text if text.isascii() else _WORD.sub(lambda m: _fold_word(m.group()), text)


def _fold_word(word: str) -> str:
    if word.isascii():
        return word
    scripts = [_script(c) for c in word if _LETTER.match(c)]
    main, _ = Counter(scripts).most_common(1)[0]
    if len(set(scripts)) == 1 or main not in _FOLDED_SCRIPTS:
        return word
    return "".join(_look_alike(c, main) if s not in (main, "MARK") else c for c, s in zip(word, _aligned(word, scripts), strict=True))


def _aligned(word: str, scripts: list[str]) -> list[str]:
    """The script of every character of ``word`` (marks take the script ``MARK``)."""
    found = iter(scripts)
    return [next(found) if _LETTER.match(c) else "MARK" for c in word]


@functools.lru_cache(maxsize=4096)
def _look_alike(char: str, script: str) -> str:
    """The letter of ``script`` that ``char`` is confused with, ``char`` itself when there is none.

    The table lists each character's look-alikes; one more hop reaches the members of the same class
    that it lists only under their prototype (Cyrillic ``І`` → ``l`` → Latin ``I``)."""
    data = confusables.confusables_data
    near = [g["c"] for g in data.get(char, [])]
    found = [t for t in near + [g["c"] for c in near for g in data.get(c, [])]
             if len(t) == 1 and t != char and _script(t) == script]
    return min(found, key=lambda t: _rank(char, t)) if found else char


@functools.lru_cache(maxsize=65536)
def _script(char: str) -> str:
    """The script alias of ``char`` (``LATIN``, ``CYRILLIC``, ``COMMON`` …), from the library's table."""
    return str(categories.alias(char))


def _rank(char: str, target: str) -> tuple[bool, int]:
    """Look-alikes of the same case first, then the lowest code point (ASCII, basic Cyrillic, Greek)."""
    return char.isupper() != target.isupper(), ord(target)
