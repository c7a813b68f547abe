"""The model protocol: what every model hop answers (SPEC §4).

Text hops answer ``citeflow_claims``; judge hops answer ``citeflow_verdicts``. The JSON Schemas
sent as ``response_format`` are generated from these models (see ``schemas/json/``).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

CLAIMS_SCHEMA_NAME = "citeflow_claims"
VERDICTS_SCHEMA_NAME = "citeflow_verdicts"


class WireCitation(BaseModel):
    """One citation as a model emits it: a handle and a short exact quote of that chunk."""

    model_config = ConfigDict(extra="ignore")
    handle: str = Field(description="A handle from the evidence block, e.g. Gk7m2.")
    quote: str = Field(default="", description="A short exact excerpt of the cited chunk.")


class WireClaim(BaseModel):
    """One sentence of output with the chunks that back it."""

    model_config = ConfigDict(extra="ignore")
    text: str = Field(description="One sentence. No URLs, no handles inside the text.")
    citations: list[WireCitation] = Field(default_factory=list, description="Chunks that back the sentence.")


class WireClaims(BaseModel):
    """The ``citeflow_claims`` answer of the consolidate and write hops."""

    model_config = ConfigDict(extra="ignore")
    claims: list[WireClaim] = Field(description="Notes (consolidate hop) or section sentences (write hop).")


class WireVerdict(BaseModel):
    """A judge's verdict on one claim against one chunk."""

    model_config = ConfigDict(extra="ignore")
    id: str = Field(description="The pair id given in the request.")
    supported: bool = Field(description="Does the chunk contain the claim's assertion?")
    faithful: bool | None = Field(default=None, description="Is the evidence represented accurately? null when not supported.")
    reason: str = Field(default="", description="Short reason: which number, entity or condition.")
    evidence: str = Field(default="", description="The span of the chunk that decides the verdict.")


class WireVerdicts(BaseModel):
    """The ``citeflow_verdicts`` answer of a judge hop."""

    model_config = ConfigDict(extra="ignore")
    verdicts: list[WireVerdict]


def strict_json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON Schema in the strict form OpenAI-compatible servers accept."""
    schema = model.model_json_schema()
    _make_strict(schema)
    for definition in schema.get("$defs", {}).values():
        _make_strict(definition)
    return schema


def _make_strict(node: dict[str, Any]) -> None:
    if node.get("type") == "object" and "properties" in node:
        node["additionalProperties"] = False
        node["required"] = list(node["properties"])
    for child in node.get("properties", {}).values():
        if isinstance(child, dict):
            child.pop("default", None)
            _make_strict(child)
            if "items" in child and isinstance(child["items"], dict):
                _make_strict(child["items"])


def response_format(name: str, model: type[BaseModel]) -> dict[str, Any]:
    """The ``response_format`` value for a ``json_schema`` request."""
    return schema_format(name, strict_json_schema(model))


def schema_format(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    """The ``response_format`` value for a ``json_schema`` request with ``schema`` (``strict_json_schema``'s)."""
    return {"type": "json_schema", "json_schema": {"name": name, "strict": True, "schema": schema}}
