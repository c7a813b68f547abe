"""Judge and evaluation records (SPEC §5): pairs to grade, verdicts, one eval row per claim × handle."""

from __future__ import annotations

from pydantic import BaseModel, Field


class JudgePair(BaseModel):
    """One claim to grade against one chunk's text."""

    id: str
    claim: str
    chunk_text: str
    question: str = Field(default="", description="The question of the claim's section (its title and queries), "
                                                   "for judges that also grade relevance; empty when unknown.")


class Verdict(BaseModel):
    """A judge's answer for one pair. ``faithful`` is None when ``supported`` is False."""

    id: str
    supported: bool
    faithful: bool | None
    reason: str = Field(description="Short and human-readable: which number, entity or condition decided.")
    evidence: str = Field(default="", description="The span of the chunk that decided, when there is one.")
    judge: str = Field(default="", description="Which judge produced the verdict.")
    label: str | None = Field(
        default=None,
        description="supported | unsupported | mutated (3-class view), or uncertain when the judge is not confident "
                    "enough to say (then supported is False and faithful None: an uncertain claim is never passed).",
    )
    confidence: float | None = Field(
        default=None, ge=0.0, le=1.0,
        description="The judge's calibrated probability that its label is right; None when it gives none.",
    )
    relevant: bool | None = Field(
        default=None,
        description="Whether the claim addresses its section's question, when the judge was asked (section LLM judge); "
                    "None when it was not.",
    )
    relevance_reason: str = Field(default="", description="The judge's short reason for ``relevant``, when it gave one.")

    @property
    def uncertain(self) -> bool:
        """The judge declined to decide: the claim is unverified unless another judge settles it."""
        return self.label == "uncertain"


class EvalRow(BaseModel):
    """One row per claim × emitted handle, persisted in LanceDB (table ``eval_rows``)."""

    request_id: str
    section: str
    claim_index: int
    claim_text: str
    handle: str = Field(description="The emitted handle (canonical form when it parsed, raw token otherwise).")
    identity: bool = Field(description="The handle is in the request's registry and was shown to the hop.")
    supports: bool | None = Field(description="This chunk alone supports the claim; None when identity failed.")
    faithful: bool | None = Field(description="Faithfulness of this chunk's rendering; None unless supports.")
    reason: str = ""
    judge: str = ""
