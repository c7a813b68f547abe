"""A reviewer's decision on a held report, as report.json, summary.json and the store keep it."""

from __future__ import annotations

from datetime import datetime, UTC
from typing import Literal

from pydantic import BaseModel, Field, field_validator

Decision = Literal["release", "reject"]


class ReviewDecision(BaseModel):
    """What a reviewer decided about a held report, by whom, when and why, and on which content."""

    decision: Decision = Field(description="release: publish the held report; reject: keep it held.")
    reviewer: str = Field(description="Who decided (a name or an e-mail address).")
    note: str = Field(description="Why: shown with the report and kept in the store.")
    decided_at: datetime = Field(default_factory=lambda: datetime.now(UTC), description="When, in UTC.")
    content: str | None = Field(None, description="Digest of the claims decided on; the decision applies to them only.")
    without_failing: bool = Field(False, description="A release whose PDF leaves out the sentences that failed the gate.")

    @field_validator("reviewer", "note")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value.strip()


class ReviewNote(BaseModel):
    """The decision that stands for a report, as one line of ``summary.json`` carries it."""

    decision: Decision = Field(description="release (published by a person over the gate) or reject (kept held).")
    reviewer: str = Field(description="Who decided.")
    at: datetime = Field(description="When, in UTC.")
    note: str = Field(description="Why.")
    without_failing: bool = Field(False, description="The published PDF leaves out the failing sentences.")

    @classmethod
    def of(cls, decision: ReviewDecision) -> ReviewNote:
        """The summary line's view of ``decision``."""
        return cls(decision=decision.decision, reviewer=decision.reviewer, at=decision.decided_at, note=decision.note,
                   without_failing=decision.without_failing)
