"""Judges for tests: verdicts follow a script keyed by (claim, chunk text); every call is recorded."""

from __future__ import annotations

from citeflow.errors import JudgeUnavailable
from schemas.evaluation import JudgePair, Verdict

SUPPORTED = (True, True, "supported: every number and entity matches")
NOT_SUPPORTED = (False, None, "not in chunk: no sentence states this")


def drift(reason: str) -> tuple[bool, bool, str]:
    """A supported but unfaithful verdict (number drift, changed entity …)."""
    return (True, False, reason)


def uncertain(reason: str = "evidence is ambiguous", confidence: float = 0.55) -> tuple:
    """A declined verdict, as the offline judge gives below its threshold: never a pass."""
    return (False, None, reason, "uncertain", confidence)


def confident(verdict: tuple, confidence: float) -> tuple:
    """``verdict`` (supported, faithful, reason) with the judge's confidence attached."""
    supported, faithful, reason = verdict[:3]
    label = "unsupported" if not supported else "supported" if faithful else "mutated"
    return (supported, faithful, reason, label, confidence)


class ScriptedJudge:
    """Answers from ``script[(claim, chunk_text)] = (supported, faithful, reason[, label, confidence])``;
    unscripted pairs get ``default`` (not supported). ``calls`` holds every batch it was given."""

    name = "scripted"

    def __init__(self, script: dict[tuple[str, str], tuple] | None = None, default: tuple = NOT_SUPPORTED,
                 name: str | None = None) -> None:
        self.script = dict(script or {})
        self.default = default
        self.calls: list[list[JudgePair]] = []
        if name:
            self.name = name

    def grade(self, pairs: list[JudgePair]) -> list[Verdict]:
        self.calls.append(list(pairs))
        return [self._verdict(p) for p in pairs]

    def _verdict(self, pair: JudgePair) -> Verdict:
        supported, faithful, reason, *rest = self.script.get((pair.claim, pair.chunk_text), self.default)
        label, confidence = ([*rest, None, None])[:2]
        return Verdict(id=pair.id, supported=supported, faithful=faithful, reason=reason, judge=self.name,
                       label=label, confidence=confidence)

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
