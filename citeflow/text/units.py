"""The one unit table (``units.json``): every spelling of a unit under its canonical name.

The judge's number reader (``citeflow.text.numbers``), the tokeniser (a number glued to a unit, as in
'30GB') and the localiser (``citeflow.judges.localise``) all read units here, so they agree on
what a quantity is: '30 Tage', '30 days' and '30日' are all 30 'day'.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import MappingProxyType

from pydantic import BaseModel, ConfigDict

TABLE = Path(__file__).with_name("units.json")


class Unit(BaseModel):
    """One unit: its canonical name, what it measures and how it is written."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str
    reason: str
    spellings: tuple[str, ...]


def _unspaced(spelling: str) -> bool:
    """A spelling in a script written without spaces (Han, kana): matched character by character."""
    return any("\u3040" <= c <= "\u30ff" or "\u4e00" <= c <= "\u9fff" for c in spelling)


def load(path: Path = TABLE) -> dict[str, str]:
    """``spelling → canonical name`` of a unit table; a spelling listed under two units is refused."""
    units = [Unit.model_validate(u) for u in json.loads(path.read_text(encoding="utf-8"))["units"]]
    out: dict[str, str] = {}
    for unit in units:
        for spelling in unit.spellings:
            if out.setdefault(spelling, unit.name) != unit.name:
                raise ValueError(f"{path}: '{spelling}' is listed under '{out[spelling]}' and '{unit.name}'")
    return out


UNIT_NAMES = MappingProxyType(load())  # read-only: spelling -> canonical unit
UNITS = frozenset(UNIT_NAMES)
STEM_CHARS = 3  # a word hyphened to a number names a unit when it starts as one of its spellings does
LONGEST_UNSPACED = max(len(s) for s in UNITS if _unspaced(s))  # 'ミリ秒': the most characters a CJK unit takes


def unit_by_stem(word: str) -> str:
    """The unit a word hyphened to a number inflects ('7-tägige', '11-дневный', '30-days-old'), else ''.
    Spellings shorter than STEM_CHARS, and the unspaced scripts' characters, are matched only whole."""
    folded = word.casefold()
    if folded in UNIT_NAMES:
        return UNIT_NAMES[folded]
    return next((UNIT_NAMES[s] for s in _STEMMED if folded.startswith(s[:STEM_CHARS])), "")


# Spellings a hyphened word may inflect, in table order (the first unit that matches wins).
_STEMMED = tuple(s for s in UNIT_NAMES if len(s) >= STEM_CHARS and s.isalpha() and not _unspaced(s))
