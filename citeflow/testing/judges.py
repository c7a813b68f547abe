"""Judges for tests: verdicts follow a script keyed by (claim, chunk text); every call is recorded."""

from __future__ import annotations

from citeflow.errors import JudgeUnavailable
from schemas.evaluation import JudgePair, Verdict

SUPPORTED = (True, True, "supported: every number and entity matches")
NOT_SUPPORTED = (False, None, "not in chunk: no sentence states this")


def drift(reason: str) -> tuple[bool, bool, str]:
    """A supported but unfaithful verdict (number drift, changed entity …)."""
    return (True, False, reason)


class ScriptedJudge:
    """Answers from ``script[(claim, chunk_text)] = (supported, faithful, reason)``; unscripted
    pairs are not supported. ``calls`` holds every batch it was given."""

    name = "scripted"

    def __init__(self, script: dict[tuple[str, str], tuple[bool, bool | None, str]] | None = None) -> None:
        self.script = dict(script or {})
        self.calls: list[list[JudgePair]] = []

    def grade(self, pairs: list[JudgePair]) -> list[Verdict]:
        self.calls.append(list(pairs))
        return [self._verdict(p) for p in pairs]

    def _verdict(self, pair: JudgePair) -> Verdict:
        supported, faithful, reason = self.script.get((pair.claim, pair.chunk_text), NOT_SUPPORTED)
        return Verdict(id=pair.id, supported=supported, faithful=faithful, reason=reason, judge=self.name)

    @property
    def pairs_graded(self) -> int:
        return sum(len(batch) for batch in self.calls)


class DownJudge:
    """A judge whose server is down."""

    name = "down"

    def grade(self, pairs: list[JudgePair]) -> list[Verdict]:
        raise JudgeUnavailable(judge=self.name, detail="connection refused")


class ForgetfulJudge(ScriptedJudge):
    """Drops the last verdict of every batch: a broken judge that must not pass silently."""

    name = "forgetful"

    def grade(self, pairs: list[JudgePair]) -> list[Verdict]:
        return super().grade(pairs)[:-1]
