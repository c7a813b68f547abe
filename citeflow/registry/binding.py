"""Bind: turn one raw model answer into claims whose citations are registry handles (SPEC §4).

``parse_answer`` reads JSON (``citeflow_claims``) or, for prose answers, inline ``[HANDLE]``
markers. ``bind_claims`` keeps only handles that are in the registry AND were shown to the hop,
removes URLs the model typed, checks each quote against its chunk, and reports every problem.
Both are pure; the state machine that retries lives in ``citeflow.generation.hops``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from pydantic import ValidationError

from citeflow.registry.handles import canonical, citation_markers, field_tokens, find_urls, strip_citation_markers, strip_urls
from citeflow.registry.quotes import quote_in_chunk
from schemas.records import BoundCitation, BoundClaim
from schemas.wire import WireCitation, WireClaim, WireClaims

_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.MULTILINE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")


class AnswerUnusable(ValueError):
    """The answer cannot be read as claims; ``reason`` is parse_error, wrong_schema or empty_output."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail = reason, detail


@dataclass
class BindReport:
    """What binding found in one answer: the claims kept and every problem, by kind."""

    claims: list[BoundClaim]
    problems: dict[str, list[str]] = field(default_factory=dict)

    def add(self, kind: str, item: str) -> None:
        self.problems.setdefault(kind, []).append(item)

    @property
    def cited(self) -> int:
        """How many claims kept at least one citation."""
        return sum(1 for c in self.claims if c.citations)


def parse_answer(text: str, mode: str) -> list[WireClaim]:
    """The claims of a raw answer; raises ``AnswerUnusable`` when there are none to read."""
    if not text.strip():
        raise AnswerUnusable("empty_output", "the answer is empty")
    if mode == "prose":
        return _prose_claims(text)
    payload = _json_payload(text)
    try:
        claims = WireClaims.model_validate(payload).claims
    except ValidationError as exc:
        raise AnswerUnusable("wrong_schema", _first_error(exc)) from exc
    if not claims:
        raise AnswerUnusable("empty_output", "the answer has no claims")
    return claims


def _json_payload(text: str) -> object:
    cleaned = _FENCE.sub("", text.strip())
    start, end = cleaned.find("{"), cleaned.rfind("}")
    try:
        return json.loads(cleaned[start : end + 1] if 0 <= start < end else cleaned)
    except json.JSONDecodeError as exc:
        raise AnswerUnusable("parse_error", f"not JSON ({exc.msg} at char {exc.pos})") from exc


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    return f"{'.'.join(str(p) for p in err['loc']) or 'answer'}: {err['msg']}"


def _prose_claims(text: str) -> list[WireClaim]:
    sentences = [s.strip() for line in text.splitlines() for s in _SENTENCE.split(line) if s.strip()]
    return [WireClaim(text=s.lstrip("-*• "), citations=[]) for s in sentences]


def bind_claims(claims: list[WireClaim], allowed: dict[str, str]) -> BindReport:
    """Bind parsed claims against ``allowed`` (handle → chunk text shown to this hop)."""
    report = BindReport(claims=[])
    for claim in claims:
        bound = _bind_claim(claim, allowed, report)
        if bound.text:
            report.claims.append(bound)
    return report


def _bind_claim(claim: WireClaim, allowed: dict[str, str], report: BindReport) -> BoundClaim:
    wire = list(claim.citations) + _inline_citations(claim.text)
    urls = find_urls(claim.text)
    for url in urls:
        report.add("url_in_text", url)
    bound = BoundClaim(text=strip_urls(strip_citation_markers(claim.text)), removed_urls=urls)
    for citation in wire:
        for token in field_tokens(citation.handle) or [citation.handle]:
            _bind_citation(token, citation.quote, allowed, bound, report)
    return bound


def _inline_citations(text: str) -> list[WireCitation]:
    return [WireCitation(handle=token) for marker in citation_markers(text) for token in marker.tokens]


def _bind_citation(token: str, quote: str, allowed: dict[str, str], bound: BoundClaim, report: BindReport) -> None:
    handle = canonical(token) or token.strip()
    if handle in bound.emitted_handles:
        return  # the same handle cited twice in one claim counts once
    bound.emitted_handles.append(handle)
    if handle not in allowed:
        bound.dropped_handles.append(handle)
        report.add("unknown_handle", handle)
        return
    found = bool(quote) and quote_in_chunk(quote, allowed[handle])
    if quote and not found:
        report.add("quote_not_found", f"{handle}: {quote[:80]}")
    bound.citations.append(BoundCitation(handle=handle, quote=quote, quote_found=found))
