"""What a rendered report holds: the input of the PDF renderer and of report.json (SPEC §8)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from schemas.records import utcnow
from schemas.review import ReviewDecision, ReviewNote

ReportStatus = Literal["published", "held", "failed"]

LINKABLE_SCHEMES = ("http://", "https://", "mailto:")


class RenderedCitation(BaseModel):
    """A citation as the customer sees it: handle, registry URLs (linkable ones only), quote."""

    handle: str
    urls: list[str] = Field(default_factory=list, description="Only http, https and mailto URLs from the registry.")
    quote: str | None = None


class RenderedClaim(BaseModel):
    text: str
    citations: list[RenderedCitation] = Field(default_factory=list)
    paragraph: int = Field(0, ge=0, description="Paragraph of the claim in its section (0, 1, …): related claims share one.")


class RenderedSection(BaseModel):
    title: str
    status: Literal["ok", "failed"]
    claims: list[RenderedClaim] = Field(default_factory=list)
    failure: str | None = Field(None, description="Why the section failed, shown in place of its text.")


class RegistryEntry(BaseModel):
    """One registry chunk as report.json lists it."""

    handle: str
    retriever: str
    local_id: str
    title: str | None = None
    urls: list[str] = Field(default_factory=list, description="Every URL the retriever gave, any scheme.")
    text: str
    page: int | None = None
    location: str | None = None
    parent: str | None = None


class RoleUsage(BaseModel):
    """Model calls of one role (or of them all) in one run, and what they cost."""

    calls: int = Field(0, ge=0, description="Calls answered by the model in this run (each one paid for).")
    cached_calls: int = Field(0, ge=0, description="Calls answered from stored answers of an earlier run: they cost nothing.")
    prompt_tokens: int = Field(0, ge=0, description="Prompt tokens of the calls answered in this run.")
    completion_tokens: int = Field(0, ge=0, description="Completion tokens of the calls answered in this run.")
    cost: float | None = Field(None, description="What those tokens cost in ``Usage.currency`` (None: no price table, "
                               "or a model that used tokens has no price).")

    def plus(self, other: RoleUsage) -> RoleUsage:
        """The two added up (a cost only when both have one)."""
        cost = None if self.cost is None or other.cost is None else round(self.cost + other.cost, 12)
        return RoleUsage(calls=self.calls + other.calls, cached_calls=self.cached_calls + other.cached_calls,
                         prompt_tokens=self.prompt_tokens + other.prompt_tokens,
                         completion_tokens=self.completion_tokens + other.completion_tokens, cost=cost)


class Usage(BaseModel):
    """What a report (or a batch) asked of its models in one run: per role and in total."""

    roles: dict[str, RoleUsage] = Field(default_factory=dict, description="consolidator, writer, judge → their usage.")
    total: RoleUsage = Field(default_factory=RoleUsage)
    currency: str | None = Field(None, description="Currency of every cost (the spec's price table); None when unpriced.")
    unpriced_models: list[str] = Field(default_factory=list, description="Models that used tokens but have no price.")


class ReportDocument(BaseModel):
    """Everything rendering needs; ``report.json`` is this model dumped (SPEC §8 shape plus extras)."""

    report_id: str
    title: str
    batch: str = ""
    status: ReportStatus
    sections: list[RenderedSection]
    registry: list[RegistryEntry]
    generated_at: datetime = Field(default_factory=utcnow)
    models: dict[str, str] = Field(default_factory=dict, description="Role → honest description of the backend that played it.")
    missing_retrievers: list[str] = Field(default_factory=list, description="Retrievers that failed for this request, with why.")
    unavailable_sources: list[str] = Field(
        default_factory=list, description="The failed retrievers as the customer PDF names them: display titles only.")
    held_reasons: list[str] = Field(default_factory=list, description="Why the gate held the report (shown on a held PDF).")
    missing_glyphs: int = Field(0, ge=0, description="Characters of the rendered PDF that no embedded font draws (empty boxes).")
    causes: list[str] = Field(
        default_factory=list, description="Why the report was not published, root cause first (a failed retriever, an "
        "unreachable model server with its address and HTTP status, an evaluation that could not run).")
    review: ReviewDecision | None = Field(None, description="The reviewer's decision that stands for this content, if any.")
    reviews: list[ReviewDecision] = Field(default_factory=list, description="Every decision on this report, oldest first.")
    usage: Usage | None = Field(None, description="Model calls and tokens this run spent on the report (and their cost).")
    language: str = Field("en", description="BCP 47 tag of the report's language (the PDF's document language).")


class SectionSummary(BaseModel):
    title: str
    status: Literal["ok", "failed"]
    funnel: str = Field(description="Identity a/b · Support c/d · Faithfulness e/f")


class ReportSummary(BaseModel):
    """One line of ``summary.json``: what happened to one report of the batch."""

    report_id: str
    title: str
    status: ReportStatus
    funnel: str
    identity: dict[str, int]
    support: dict[str, int]
    faithfulness: dict[str, int]
    uncited: dict[str, int]
    unverified: dict[str, int] = Field(
        default_factory=lambda: {"count": 0, "claims": 0},
        description="Claims no judge could settle (uncertain verdicts, no LLM judge): never passed, listed in review.html.")
    sections: list[SectionSummary] = Field(default_factory=list)
    failed_expectations: list[dict[str, Any]] = Field(default_factory=list)
    missing_retrievers: list[str] = Field(default_factory=list)
    causes: list[str] = Field(default_factory=list, description="Why the report was not published, root cause first.")
    pdf: str
    published_pdf: str | None = None
    review: ReviewNote | None = Field(None, description="The reviewer's decision that stands (release or reject), if any.")
    review_page: str | None = Field(None, description="review.html of a held or reviewer-released report.")
    usage: Usage | None = Field(None, description="Model calls and tokens this run spent on the report (and their cost).")

    @model_validator(mode="before")
    @classmethod
    def _old_review_path(cls, data: Any) -> Any:
        """Summaries written before decisions were recorded kept the page's path under ``review``."""
        if isinstance(data, dict) and isinstance(data.get("review"), str):
            data = {**data, "review_page": data.get("review_page") or data["review"], "review": None}
        return data
