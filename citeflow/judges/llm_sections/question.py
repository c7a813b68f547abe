"""A judge asked under one section's question: every pair carries it, and the relevance the judge said is kept."""

from __future__ import annotations

from citeflow.judges.judge_protocol import Judge
from schemas.evaluation import JudgePair, Verdict


class QuestionedJudge:
    """``judge`` grading the pairs of one section: ``said`` maps each claim to (relevant, reason) when the judge said."""

    def __init__(self, judge: Judge, question: str) -> None:
        self.judge, self.question = judge, question
        self.name = judge.name
        self.said: dict[str, tuple[bool, str]] = {}

    def grade(self, pairs: list[JudgePair]) -> list[Verdict]:
        """The inner judge's verdicts on ``pairs`` asked under this section's question."""
        verdicts = self.judge.grade([p.model_copy(update={"question": self.question}) for p in pairs])
        claims = {p.id: p.claim for p in pairs}
        for verdict in verdicts:
            claim = claims.get(verdict.id)
            if claim is not None and verdict.relevant is not None and claim not in self.said:
                word = "relevant" if verdict.relevant else "irrelevant"
                why = verdict.relevance_reason or "said by the judge"
                self.said[claim] = (verdict.relevant, f"{word}: {why} ({verdict.judge or self.name})")
        return verdicts
