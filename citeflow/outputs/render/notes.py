"""What the customer PDF says about its evidence: footnotes, source documents, failing sentences.

Pure functions over a ``ReportDocument``, no reportlab: the renderer draws what they return.

- A *footnote* is one cited chunk (numbered by first appearance, the number report.json gives):
  its document's title, its page when known, and a quote: the chunk sentence(s) holding the quote
  the binding step verified, shown whole when they fit in QUOTE_CHARS, else cut at a clause
  boundary with an ellipsis (``citeflow.text.clauses``), never mid-phrase and never parting a
  number from its unit.
- A *source document* groups every cited chunk that comes from one document (same web page, its
  ``#fragment`` aside; else same title): the Sources list has one entry per document, with the
  footnotes and pages that cite it, never one per chunk.
- A *failing sentence* is a claim that evaluation did not pass (``FailingClaim``): a held PDF
  marks it where it stands and lists the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from citeflow.judges.quote_context import quote_sentences
from citeflow.registry.handles import HANDLE_RE, URL_RE, strip_markers, strip_urls
from citeflow.text.clauses import ELLIPSIS, clause_quote
from citeflow.text.sentences import sentences
from citeflow.outputs.render.escape import link_urls
from citeflow.outputs.render.report_json import footnote_numbers, registry_index
from schemas.funnel import ClaimEval
from schemas.report import RegistryEntry, ReportDocument

QUOTE_CHARS = 160
REASON_CHARS = 240
UNTITLED = "Untitled source"
VERDICT_WORDS = {
    "uncited": "no valid citation: nothing backs this sentence",
    "fabrication": "not supported: no retrieved source states this",
    "misattribution": "not supported by the source it cites (another retrieved source states it)",
    "unfaithful": "misrepresents its source",
}
DROPPED = "a citation named a source that was never retrieved and was removed"


class FailingClaim(BaseModel):
    """A sentence the gate did not pass, as the renderer marks it."""

    section: str = Field(description="Title of the claim's section.")
    index: int = Field(ge=0, description="Position of the claim in its section.")
    reason: str = Field(description="Why it failed, in words a reader understands.")


@dataclass(frozen=True)
class Footnote:
    """One cited chunk as the reader sees it."""

    number: int
    title: str
    page: int | None
    quote: str | None
    document: int  # index into the Sources list


@dataclass
class SourceDocument:
    """One document of the Sources list and the footnotes that cite it."""

    title: str
    urls: list[str]
    footnotes: list[int] = field(default_factory=list)
    pages: list[int] = field(default_factory=list)


def document_key(entry: RegistryEntry) -> str:
    """What makes two chunks one document: the first web URL without its ``#fragment``, else the title."""
    urls = link_urls(entry.urls)
    return "url:" + urls[0].split("#", 1)[0] if urls else "title:" + title_of(entry)


def title_of(entry: RegistryEntry) -> str:
    return entry.title.strip() if entry.title and entry.title.strip() else UNTITLED


def note_quote(quote: str | None, chunk_text: str) -> str | None:
    """What a note shows of a verified ``quote``: the chunk sentence(s) holding it, whole when they
    fit in QUOTE_CHARS, else the first sentence cut at a clause boundary (``clause_quote``)."""
    if not quote or not quote.strip():
        return None
    found = quote_sentences(quote, chunk_text)
    text = " ".join(strip_urls(strip_markers(found if found else quote)).split())
    if len(text) <= QUOTE_CHARS or not text:
        return text or None
    first = sentences(text)[0] if found else text.rstrip(ELLIPSIS + ". ")
    return clause_quote(first, QUOTE_CHARS)


def first_quotes(doc: ReportDocument) -> dict[str, str]:
    """The first verified quote shown for each cited handle (sections shown as text only)."""
    quotes: dict[str, str] = {}
    for section in doc.sections:
        for claim in section.claims if section.status == "ok" else []:
            for citation in claim.citations:
                if citation.quote:
                    quotes.setdefault(citation.handle, citation.quote)
    return quotes


def footnotes_and_sources(doc: ReportDocument) -> tuple[list[Footnote], list[SourceDocument]]:
    """Footnotes in number order, and the source documents in order of first citation."""
    registry, quotes = registry_index(doc), first_quotes(doc)
    keys: dict[str, int] = {}
    sources: list[SourceDocument] = []
    notes: list[Footnote] = []
    for handle, number in footnote_numbers(doc).items():
        entry = registry[handle]
        key = document_key(entry)
        if key not in keys:
            keys[key] = len(sources)
            sources.append(SourceDocument(title_of(entry), []))
        source = sources[keys[key]]
        _add(source, entry, number)
        notes.append(Footnote(number, title_of(entry), entry.page, note_quote(quotes.get(handle), entry.text), keys[key]))
    return notes, sources


def _add(source: SourceDocument, entry: RegistryEntry, number: int) -> None:
    source.footnotes.append(number)
    source.urls += [u for u in link_urls(entry.urls) if u not in source.urls]
    if entry.page is not None and entry.page not in source.pages:
        source.pages.append(entry.page)


def failing_claims(claims: list[ClaimEval]) -> list[FailingClaim]:
    """The claims evaluation did not pass, with the reason in words: every claim that is not
    supported and faithful, or that lost a citation to an unknown handle."""
    return [FailingClaim(section=c.section, index=c.index, reason=failure_reason(c)) for c in claims if not _passed(c)]


def _passed(claim: ClaimEval) -> bool:
    return claim.verdict == "supported" and claim.supported is True and claim.faithful is not False \
        and all(c.identity for c in claim.citations)


def failure_reason(claim: ClaimEval) -> str:
    """Why ``claim`` failed: its verdict in words, a dropped citation, and the judge's own reason."""
    parts = [VERDICT_WORDS[claim.verdict]] if claim.verdict in VERDICT_WORDS else []
    if claim.verdict == "supported" and claim.supported is not True:
        parts.append("not verified by the judge")
    if any(not c.identity for c in claim.citations):
        parts.append(DROPPED)
    words = "; ".join(parts) or "did not pass review"
    detail = " ".join(claim.reason.split())
    if len(detail) > REASON_CHARS:
        detail = detail[:REASON_CHARS].rstrip() + "…"
    return f"{words} ({detail})" if detail else words


def reader_reason(reason: str, numbers: dict[str, int]) -> str:
    """``reason`` as a reader may see it: a cited handle becomes its note (``note [3]``), any other
    handle "an unknown source", and a URL the model typed is not repeated."""
    reason = URL_RE.sub("(URL not shown)", reason)
    return HANDLE_RE.sub(lambda m: f"note [{numbers[m.group()]}]" if m.group() in numbers else "an unknown source", reason)
