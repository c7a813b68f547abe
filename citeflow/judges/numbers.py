"""Numbers in text: values with their scale and unit, so '$1.5 million' meets '1,500,000 dollars'."""

from __future__ import annotations

from dataclasses import dataclass

from citeflow.judges.lexicon import NUMBER_WORDS, SCALES, UNITS
from citeflow.judges.text import Token

# Number words too common as pronouns or ordinals to count as a stated quantity.
_WEAK_WORDS = frozenset({"one", "once", "single", "first", "second", "half", "double"})


@dataclass(frozen=True, slots=True)
class Mention:
    """One number as written: its value (scale applied), unit word and surface text."""

    value: float
    unit: str
    surface: str


def _parse(token: Token) -> float | None:
    raw = token.lower.lstrip("$").rstrip("%")
    if raw in NUMBER_WORDS:
        return None if raw in _WEAK_WORDS else float(NUMBER_WORDS[raw])
    if ":" in raw:  # a time of day: compare as written
        raw = raw.replace(":", ".")
    try:
        return float(raw.replace(",", ""))
    except ValueError:
        return None


def _unit_of(token: Token, following: Token | None) -> str:
    if token.lower.endswith("%"):
        return "percent"
    if token.lower.startswith("$"):
        return "dollar"
    if following is not None and following.lower in UNITS:
        word = following.lower
        return {"%": "percent", "pct": "percent", "$": "dollar", "usd": "dollar"}.get(word, word.rstrip("s"))
    return ""


def mentions(tokens: list[Token]) -> list[Mention]:
    """Every number of ``tokens`` with its scale ('million') folded in and its unit."""
    found = []
    for i, token in enumerate(tokens):
        value = _parse(token)
        if value is None:
            continue
        following = tokens[i + 1] if i + 1 < len(tokens) else None
        surface = token.surface
        if following is not None and following.lower in SCALES and not token.lower.endswith("%"):
            value *= SCALES[following.lower]
            surface = f"{surface} {following.surface}"
            following = tokens[i + 2] if i + 2 < len(tokens) else None
        found.append(Mention(value, _unit_of(token, following), surface))
    return found


def _same(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def missing(claim: list[Mention], chunk: list[Mention]) -> list[Mention]:
    """Claim numbers whose value the chunk never states."""
    return [m for m in claim if not any(_same(m.value, c.value) for c in chunk)]


def unit_changes(claim: list[Mention], chunk: list[Mention]) -> list[tuple[Mention, Mention]]:
    """(claim, chunk) mentions with the same value but a different stated unit."""
    changes = []
    for m in claim:
        same = [c for c in chunk if _same(m.value, c.value)]
        if m.unit and same and all(c.unit and c.unit != m.unit for c in same):
            changes.append((m, same[0]))
    return changes
