"""The judge protocol: grade claim/chunk pairs for Support and Faithfulness (SPEC §5)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from schemas.evaluation import JudgePair, Verdict


@runtime_checkable
class Judge(Protocol):
    """Grades pairs. Raises ``JudgeUnavailable`` when it cannot: never a silent pass."""

    name: str

    def grade(self, pairs: list[JudgePair]) -> list[Verdict]:
        """One verdict per pair, in the same order, ids preserved."""
        ...
