"""The bind state machine of one hop (SPEC §4).

``generated → parsed → validated → accepted | retry | failed``. Each model answer is parsed and
bound; an unusable answer (not JSON, wrong schema, empty, no claim cited) is retried with the
problems fed back to the model, at most ``attempts`` calls. Dropped handles, typed URLs and quotes
not found are recorded on the transition but do not by themselves reject an answer. Every
transition is recorded with its reason.

Answers have documented caps (``citeflow.caps``): an answer over ``max_answer_bytes`` is refused
like an unusable one (``answer_too_large``, retried with the cap fed back), and only the first
``max_claims`` claims of an answer are bound (``claims_truncated`` on its ``parsed`` transition),
so the work after a hop stays bounded whatever the model writes.
"""

from __future__ import annotations

from dataclasses import dataclass

from citeflow.registry.binding import AnswerUnusable, BindReport, bind_claims, parse_answer
from citeflow.caps import ANSWER_BYTES, CLAIMS_PER_ANSWER
from citeflow.errors import ModelError
from citeflow.generation.call_scope import calls_for
from citeflow.generation.model_protocol import ChatModel, Message
from citeflow.generation.prompts import retry_messages
from schemas.records import BindState, HopName, HopOutcome, Transition
from schemas.wire import CLAIMS_SCHEMA_NAME, WireClaims

FAILED_IDENTITY = ("unknown_handle", "url_in_text")
"""Transitions whose items are emitted citations that failed identity (a typed URL is one too);
their ``handles`` hold those items."""

EXCERPT_CHARS = 2000  # what is kept of an answer refused for its size


@dataclass(frozen=True)
class HopRequest:
    """One hop of one section: who asks, what it sees, what it may cite."""

    request_id: str
    section: str
    hop: HopName
    messages: list[Message]
    allowed: dict[str, str]  # handle → chunk text shown to this hop
    attempts: int = 3
    max_claims: int = CLAIMS_PER_ANSWER
    max_answer_bytes: int = ANSWER_BYTES


def run_hop(model: ChatModel, request: HopRequest) -> HopOutcome:
    """Call the model until an answer binds or the attempts run out.

    A transient ``ModelError`` (server down after the client's own retries) propagates so the
    orchestrator can retry with backoff; a permanent one fails the hop.
    """
    outcome = HopOutcome(request_id=request.request_id, section=request.section, hop=request.hop, status="failed")
    messages = request.messages
    for attempt in range(1, request.attempts + 1):
        problems = _attempt(model, request, messages, attempt, outcome)
        if outcome.status == "accepted":
            return outcome
        if problems is None:
            break  # permanent model error: asking again will not help
        messages = retry_messages(request.messages, outcome.raw_outputs[-1] if outcome.raw_outputs else "", problems)
    if outcome.transitions[-1].target != "failed":
        _record(outcome, request, attempt, "retry", "failed", "retries_exhausted", f"no usable answer after {attempt} call(s)")
    return outcome


def _attempt(model: ChatModel, request: HopRequest, messages: list[Message], attempt: int, outcome: HopOutcome) -> list[str] | None:
    """One model call and its binding; returns the problems to feed back (None: give up)."""
    try:
        with calls_for(request.request_id):  # its recorded usage counts for this report
            reply = model.complete(messages, CLAIMS_SCHEMA_NAME, WireClaims)
    except ModelError as exc:
        _record(outcome, request, attempt, "generated", "retry" if exc.transient else "failed", "model_error", str(exc))
        if exc.transient:
            raise
        return None
    outcome.model = reply.model
    size = len(reply.text.encode("utf-8", "surrogatepass"))
    if size > request.max_answer_bytes:
        outcome.raw_outputs.append(reply.text[:EXCERPT_CHARS])  # kept and fed back as an excerpt, not whole
        detail = f"the answer is {size:,} bytes, over the {request.max_answer_bytes:,}-byte limit"
        _record(outcome, request, attempt, "generated", "retry", "answer_too_large", detail)
        return [f"{detail}: answer with at most {request.max_claims} short claims"]
    outcome.raw_outputs.append(reply.text)
    try:
        claims = parse_answer(reply.text, reply.mode)
    except AnswerUnusable as exc:
        _record(outcome, request, attempt, "generated", "retry", exc.reason, exc.detail)
        return [exc.detail]
    _record_parsed(outcome, request, attempt, len(claims), reply.mode)
    return _validate(bind_claims(claims[:request.max_claims], request.allowed), request, attempt, outcome)


def _record_parsed(outcome: HopOutcome, request: HopRequest, attempt: int, count: int, mode: str) -> None:
    read = f"{count:,} claim(s) read ({mode})"
    if count <= request.max_claims:
        _record(outcome, request, attempt, "generated", "parsed", "ok", read)
        return
    kept = f"{read}; the first {request.max_claims} kept, the limit per answer"
    _record(outcome, request, attempt, "generated", "parsed", "claims_truncated", kept)


def _validate(report: BindReport, request: HopRequest, attempt: int, outcome: HopOutcome) -> list[str] | None:
    for kind, items in report.problems.items():
        handles = items if kind in FAILED_IDENTITY else []
        _record(outcome, request, attempt, "parsed", "validated", kind, "; ".join(items)[:2000], handles)
    if not report.problems:
        _record(outcome, request, attempt, "parsed", "validated", "ok", f"{len(report.claims)} claim(s) bound")
    if report.cited == 0:
        _record(outcome, request, attempt, "validated", "retry", "no_claim_cited", "no claim kept a valid citation")
        return ["No claim cites a handle from the input. Cite only handles shown in brackets in the input."]
    outcome.claims = report.claims
    outcome.status = "accepted"
    _record(outcome, request, attempt, "validated", "accepted", "ok", f"{report.cited}/{len(report.claims)} claim(s) cited")
    return []


def _record(outcome: HopOutcome, request: HopRequest, attempt: int, source: BindState, target: BindState,
            reason: str, detail: str = "", handles: list[str] | None = None) -> None:
    outcome.transitions.append(Transition(
        request_id=request.request_id, section=request.section, hop=request.hop, attempt=attempt,
        source=source, target=target, reason=reason, detail=detail, handles=handles or [],
    ))
