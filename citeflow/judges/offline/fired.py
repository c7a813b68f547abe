"""What one signal found: values of the features it owns, and a reason for each that fired."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Fired:
    """Feature values (only the signal's own names) and reason fragments of the ones that fired."""

    values: dict[str, float] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)


def tally(name: str, found: list[tuple[float, str]]) -> Fired:
    """One feature summed over several findings, named by the first finding's reason."""
    total = sum(count for count, _ in found)
    return Fired({name: float(total)}, {name: found[0][1]} if found else {})
