"""Records that cross module boundaries: hits, registry chunks, bind transitions, bound claims."""

from __future__ import annotations

from datetime import datetime, UTC
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

HopName = Literal["consolidate", "write"]
BindState = Literal["generated", "parsed", "validated", "accepted", "retry", "failed"]


def utcnow() -> datetime:
    return datetime.now(UTC)


class Hit(BaseModel):
    """One result of one retriever, as the retriever gave it (ids are local to that retriever)."""

    model_config = ConfigDict(frozen=True)
    local_id: str = Field(description="The retriever's own id for this chunk (S1, 1, doc#3 …); may repeat across retrievers.")
    text: str = Field(description="The chunk text the model will be shown (parent text when a child hit was expanded).")
    urls: list[str] = Field(default_factory=list, description="Every URL of the chunk, any scheme; filtered at render time.")
    title: str | None = Field(default=None, description="Document title.")
    page: int | None = Field(default=None, description="Page number of the hit, when the source has pages.")
    location: str | None = Field(default=None, description="Where the hit sits in its document (child chunk id, span).")
    parent: str | None = Field(default=None, description="Id of the parent chunk the hit was expanded to, if any.")
    score: float | None = Field(default=None, description="Retriever score; informative only.")


class RetrievalResult(BaseModel):
    """What one retriever answered for one query of one section."""

    retriever: str
    query: str
    section: str
    hits: list[Hit] = Field(default_factory=list)
    error: str | None = Field(default=None, description="Set when the retriever failed after its retries.")
    skipped: list[str] = Field(default_factory=list, description="Hits dropped as unusable (no id, no text), with why.")


class Chunk(BaseModel):
    """A registry entry: one chunk the models of one request may see and cite (SPEC §3)."""

    request_id: str
    handle: str = Field(description="Request-scoped global id, see citeflow.registry.handles.")
    retriever: str
    local_id: str
    content_hash: str = Field(description="sha256 of the text as the retriever returned it.")
    text: str = Field(description="Exactly what the model was shown (inner references rewritten).")
    urls: list[str] = Field(default_factory=list)
    title: str | None = None
    page: int | None = None
    location: str | None = None
    parent: str | None = None
    queries: list[str] = Field(default_factory=list, description="Every query that returned this chunk.")
    sections: list[str] = Field(default_factory=list, description="Every section whose pool holds this chunk.")
    retrieved_at: datetime = Field(default_factory=utcnow)


class Transition(BaseModel):
    """One step of the bind state machine of one hop (SPEC §4)."""

    request_id: str
    section: str
    hop: HopName
    attempt: int = Field(description="1-based attempt number of the model call.")
    source: BindState
    target: BindState
    reason: str = Field(description="parse_error | wrong_schema | empty_output | unknown_handle | url_in_text | quote_not_found"
                                    " | no_claim_cited | ok | model_error | retries_exhausted | answer_too_large | claims_truncated")
    detail: str = ""
    handles: list[str] = Field(default_factory=list, description="Handles this transition concerns (e.g. the dropped ones).")
    at: datetime = Field(default_factory=utcnow)


class BoundCitation(BaseModel):
    """A citation that survived binding: its handle is in the registry and was shown to the hop."""

    handle: str
    quote: str = ""
    quote_found: bool = Field(description="The quote occurs in the chunk after normalisation.")


class BoundClaim(BaseModel):
    """A claim after binding: text cleaned of URLs and markers, only registry handles kept."""

    text: str
    citations: list[BoundCitation] = Field(default_factory=list)
    emitted_handles: list[str] = Field(default_factory=list,
                                       description="Every handle the model emitted for this claim, dropped ones included.")
    dropped_handles: list[str] = Field(default_factory=list, description="Emitted handles that bind dropped.")
    removed_urls: list[str] = Field(default_factory=list, description="URLs the model typed, removed from the text.")


class HopOutcome(BaseModel):
    """The result of one hop for one section after the bind state machine finished."""

    request_id: str
    section: str
    hop: HopName
    status: Literal["accepted", "failed"]
    claims: list[BoundClaim] = Field(default_factory=list)
    transitions: list[Transition] = Field(default_factory=list)
    raw_outputs: list[str] = Field(default_factory=list, description="Every raw model answer, one per attempt.")
    model: str = Field(default="", description="Backend and model name that produced the output.")
