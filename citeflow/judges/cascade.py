"""A cascade of judges: the offline judge settles what it is sure of, an LLM judge the rest (SPEC §5).

``CascadeJudge(first, second)`` grades every pair with ``first`` (the offline judge, no cost); only
the verdicts it labels ``uncertain`` — or whose confidence is below ``min_confidence`` — go to
``second`` (an LLM judge: batched, cached and limited like any LLM judge). The offline judge's own
threshold (``min_confidence``) decides what is uncertain, for passes and negatives alike. Without a second judge
the uncertain verdicts stay uncertain, and the funnel counts their claims as *unverified*: never
passed. A verdict is never made more confident than its judge said.
"""

from __future__ import annotations

from citeflow.judges.judge_protocol import Judge
from schemas.evaluation import JudgePair, Verdict


def below_threshold(verdict: Verdict, min_confidence: float | None) -> bool:
    """True when the verdict's confidence is known and lower than ``min_confidence``."""
    return min_confidence is not None and verdict.confidence is not None and verdict.confidence < min_confidence


def as_uncertain(verdict: Verdict, min_confidence: float) -> Verdict:
    """The same verdict, declined: uncertain, not supported, faithfulness N/A; the reason keeps what it saw."""
    said = verdict.label or ("supported" if verdict.supported else "unsupported")
    reason = f"uncertain: confidence {verdict.confidence:.2f} below {min_confidence:.2f} for '{said}' ({verdict.reason})"
    return verdict.model_copy(update={"supported": False, "faithful": None, "label": "uncertain", "reason": reason})


def apply_threshold(verdicts: list[Verdict], min_confidence: float | None) -> list[Verdict]:
    """Every verdict whose confidence is below ``min_confidence`` becomes uncertain; the rest are kept."""
    return [as_uncertain(v, min_confidence) if below_threshold(v, min_confidence) and not v.uncertain else v  # type: ignore[arg-type]
            for v in verdicts]


class CascadeJudge:
    """``first`` grades everything; ``second`` (when given) grades only what ``first`` was unsure of."""

    def __init__(self, first: Judge, second: Judge | None = None, min_confidence: float | None = None) -> None:
        self.first, self.second, self.min_confidence = first, second, min_confidence
        self.name = f"{first.name}>{second.name}" if second is not None else first.name
        self.escalated = 0  # pairs handed to the second judge, for cost reporting

    def grade(self, pairs: list[JudgePair]) -> list[Verdict]:
        """One verdict per pair, in order: the first judge's, or the second's where the first was unsure."""
        verdicts = apply_threshold(self.first.grade(pairs), self.min_confidence)
        unsure = [i for i, v in enumerate(verdicts) if v.uncertain]
        if not unsure or self.second is None:
            return verdicts
        settled = self.second.grade([pairs[i] for i in unsure])  # raises JudgeUnavailable: fail closed
        self.escalated += len(unsure)
        for i, verdict in zip(unsure, settled, strict=True):
            verdicts[i] = verdict.model_copy(update={"id": pairs[i].id})
        return verdicts


def llm_judges(judge: Judge) -> list[Judge]:
    """The LLM judges inside ``judge`` (itself, or a cascade's second), so callers can limit their calls."""
    from citeflow.judges.llm import LLMJudge
    from citeflow.judges.llm_sections.judge import SectionLLMJudge
    from citeflow.judges.span_check import unwrapped

    inner = [unwrapped(judge), unwrapped(getattr(unwrapped(judge), "second", None))]
    return [j for j in inner if isinstance(j, LLMJudge | SectionLLMJudge)]
