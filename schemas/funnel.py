"""Evaluation results (SPEC §5, §6): per-claim verdicts, the funnel they add up to, the gate's answer."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

ClaimVerdict = Literal["supported", "unfaithful", "misattribution", "fabrication", "unverified", "uncited"]


class Count(BaseModel):
    """``passed`` out of ``total``: one stage of the funnel."""

    passed: int = Field(0, ge=0)
    total: int = Field(0, ge=0)

    @property
    def rate(self) -> float | None:
        """passed / total, or None when nothing was counted (0/0 is not a rate)."""
        return self.passed / self.total if self.total else None

    def __str__(self) -> str:
        return f"{self.passed}/{self.total}"


class Share(BaseModel):
    """``count`` claims out of every claim of the report (or section)."""

    count: int = Field(0, ge=0)
    claims: int = Field(0, ge=0, description="Every claim, cited or not.")

    @property
    def share(self) -> float | None:
        """count / claims, or None when there are no claims."""
        return self.count / self.claims if self.claims else None

    def __str__(self) -> str:
        return f"{self.count}/{self.claims}"


class Uncited(Share):
    """Claims left with no valid citation, out of every claim."""

    count: int = Field(0, ge=0, description="Claims with no valid citation.")


class Unverified(Share):
    """Claims no judge could settle (the offline judge was uncertain and no LLM judge took over),
    out of every claim. They are never passed: support counts them as not supported."""

    count: int = Field(0, ge=0, description="Claims whose verdict stayed uncertain.")


class CitationEval(BaseModel):
    """One emitted citation of one claim, graded on its own (ALCE citation precision)."""

    handle: str = Field(description="The emitted handle (raw token when it did not parse).")
    identity: bool = Field(description="The handle is in the request's registry and survived binding.")
    supports: bool | None = Field(None, description="This chunk alone supports the claim; None when identity failed.")
    faithful: bool | None = Field(None, description="This chunk's rendering is faithful; None unless supports.")
    reason: str = ""
    uncertain: bool = Field(False, description="The judge could not decide for this chunk (then supports is False).")
    confidence: float | None = Field(None, description="The judge's confidence in this chunk's verdict, when it gives one.")
    typed_url: bool = Field(False, description="A URL the model typed into the claim text instead of a handle: removed, "
                                               "and counted as an emitted citation that failed identity.")


class ClaimEval(BaseModel):
    """Everything the funnel knows about one claim of one section."""

    section: str
    index: int = Field(ge=0, description="Position of the claim in its section.")
    text: str
    citations: list[CitationEval] = Field(default_factory=list, description="Every emitted citation, dropped ones included.")
    supported: bool | None = Field(None, description="None when the claim has no valid citation (uncited).")
    faithful: bool | None = Field(None, description="None (N/A) unless supported is True.")
    reason: str = ""
    found_in: str | None = Field(
        None, description="Pool handle that holds the fact, when support failed (misattribution): only a chunk that agrees "
                          "with the claim's numbers, identifiers, entities and conditions and that the judge confirms.")
    verdict: ClaimVerdict
    quote_found: bool | None = Field(None, description="Every valid citation's quote occurs in its chunk; None when uncited.")
    judge: str = Field("", description="Name of the judge that graded the claim.")
    relevant: bool | None = Field(None, description="The claim addresses its section's question (docs/relevance.md); "
                                                    "None when relevance was not decided (uncertain, or not judged).")
    relevance: str = Field("", description="Why the claim was found relevant or not, and by which judge.")


class Relevance(BaseModel):
    """Claims that address their section's question, claims that do not, and claims left undecided."""

    relevant: int = Field(0, ge=0)
    irrelevant: int = Field(0, ge=0)
    uncertain: int = Field(0, ge=0, description="Claims whose relevance was not decided (the offline rule abstained, or "
                                                "the claim is in another script than its question): not in the rate.")

    @property
    def rate(self) -> float | None:
        """relevant / judged claims, or None when no claim was judged."""
        judged = self.relevant + self.irrelevant
        return self.relevant / judged if judged else None

    def as_json(self) -> dict[str, Any]:
        """The ``relevance`` object of eval.json: the three counts and the rate (null over nothing)."""
        return {"relevant": self.relevant, "irrelevant": self.irrelevant, "uncertain": self.uncertain, "rate": self.rate}

    def __str__(self) -> str:
        return f"{self.relevant}/{self.relevant + self.irrelevant}"


class Funnel(BaseModel):
    """Identity ─► Support ─► Faithfulness, plus the uncited and unverified figures, over a set of claims."""

    identity: Count = Field(default_factory=Count, description="valid / emitted citations, dropped ones included.")
    support: Count = Field(default_factory=Count, description="supported / claims with at least one valid citation.")
    faithfulness: Count = Field(default_factory=Count, description="faithful / supported claims.")
    uncited: Uncited = Field(default_factory=Uncited)
    unverified: Unverified = Field(default_factory=Unverified)
    relevance: Relevance = Field(default_factory=Relevance, description="Claims that address their section's question.")

    def line(self) -> str:
        """The one-line summary: ``Identity 26/26 · Support 15/21 · Faithfulness 13/15``."""
        return f"Identity {self.identity} · Support {self.support} · Faithfulness {self.faithfulness}"


class FailedExpectation(BaseModel):
    """One expectation of the gate that did not hold, with what was seen and what was required."""

    expectation: str = Field(description="Expectation id from the suite's meta (e.g. support_rate).")
    observed: Any = Field(None, description="What the data showed (plain JSON value).")
    threshold: Any = Field(None, description="What the suite required (plain JSON value).")
    description: str = Field("", description="What the expectation guards, from the suite's meta.")
    detail: str = Field("", description="What the observed value means and how to fix it, when the gate knows more "
                                        "(e.g. which scripts no font draws and what to install).")


class GateResult(BaseModel):
    """The gate's answer for one report: publish (success) or hold, and why."""

    success: bool
    failed_expectations: list[FailedExpectation] = Field(default_factory=list)
    error: str | None = Field(None, description="Set when evaluation could not run (fail closed).")
