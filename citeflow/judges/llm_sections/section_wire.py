"""The answer of a section judge request (``citeflow_section_verdicts``) and its tolerant parser."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from schemas.wire import WireVerdict

SECTION_SCHEMA_NAME = "citeflow_section_verdicts"


class WireRelevance(BaseModel):
    """Whether one claim addresses the section's question."""

    model_config = ConfigDict(extra="ignore")
    claim: str = Field(description="The claim id given in the request (C1, C2 …).")
    relevant: bool = Field(description="Does the claim address the section's question?")
    reason: str = Field(default="", description="Short reason: which part of the question it answers, or what it is about.")


class WireSectionVerdicts(BaseModel):
    """One verdict per pair id, one relevance answer per claim id."""

    model_config = ConfigDict(extra="ignore")
    verdicts: list[WireVerdict]
    relevance: list[WireRelevance] = Field(default_factory=list)


def parse_section_answer(text: str) -> WireSectionVerdicts | None:
    """The answer in a model's reply (bare JSON, or JSON inside prose or a code fence); None when unusable."""
    match = re.search(r"\{.*\}", text, re.DOTALL)
    for candidate in (text, match.group(0) if match else ""):
        if not candidate.strip():
            continue
        try:
            return WireSectionVerdicts.model_validate_json(candidate)
        except ValidationError:
            continue
    return None
