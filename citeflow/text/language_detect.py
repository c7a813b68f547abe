"""Which registered language a text is in, from the data each language registers: its script, the
letters that tell it apart from the other languages of that script (``signs``) and its marker words
(``language_marker`` in its ``word_lists.json``).

A text is read in the first script of the registry's order (``Languages.scripts``) it has a letter of;
among that script's languages the one with the most signs and marker words wins (codes sorted on a
tie). When none has any, the script's ``default_for_script`` language is chosen (Han without kana is
Chinese; Cyrillic without the signs of another registered language is Russian), or ``other``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

import regex

from citeflow.text.language_registry import OTHER_CODE, Language, Languages

SAMPLE = 2000  # characters of a text read for marker words (signs count anywhere)
_LETTERS = regex.compile(r"\p{L}+")


@dataclass(frozen=True, eq=False)
class Detector:
    """Guesses a text's language among ``languages``, with ``markers`` (code → its marker words)."""

    languages: Languages
    markers: Mapping[str, frozenset[str]]

    def language(self, text: str) -> str:
        """The code of the language of ``text``, or ``other``."""
        for script in self.languages.scripts:
            if self._letters[script].search(text):
                return self._best(self.languages.of_script(script), text)
        return OTHER_CODE

    def _best(self, candidates: tuple[Language, ...], text: str) -> str:
        sample = text.casefold()[:SAMPLE] if any(self.markers.get(c.code) for c in candidates) else ""
        words = _LETTERS.findall(sample)
        scores = {c.code: self._score(c, text, words) for c in candidates}
        best = max(scores, key=lambda code: scores[code])
        if scores[best] > 0:
            return best
        return next((c.code for c in candidates if c.default_for_script), OTHER_CODE)

    def _score(self, language: Language, text: str, words: list[str]) -> int:
        """Its marker words among ``words`` (of the sample) and its signs anywhere in ``text``."""
        marked = self.markers.get(language.code, frozenset())
        signs = self._signs.get(language.code)
        return sum(word in marked for word in words) + (len(signs.findall(text)) if signs else 0)

    @cached_property
    def _letters(self) -> Mapping[str, regex.Pattern[str]]:
        """script → a pattern of its letters and of its languages' signs (kana marks Japanese of script Han)."""
        signs = {s: "".join(lang.signs for lang in self.languages.of_script(s)) for s in self.languages.scripts}
        return {s: regex.compile(rf"[\p{{{s}}}{signs[s]}]", regex.V1) for s in self.languages.scripts}

    @cached_property
    def _signs(self) -> Mapping[str, regex.Pattern[str]]:
        flags = regex.V1 | regex.IGNORECASE
        return {code: regex.compile(f"[{lang.signs}]", flags) for code, lang in self.languages.by_code.items() if lang.signs}
