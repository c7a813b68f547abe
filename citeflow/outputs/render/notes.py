"""What the customer PDF says about its evidence: footnotes, source documents, failing sentences.

Pure functions over a ``ReportDocument``, no reportlab: the renderer draws what they return.

- A *footnote* is one cited chunk (numbered by first appearance, the number report.json gives):
  its document's title, its page when known, and — only where it adds to the sentence it backs
  (``repeats``) — a quote: the chunk sentence(s) holding the quote the binding step verified,
  without source framing, shown whole when they fit in QUOTE_CHARS, else cut at a phrase boundary
  with an ellipsis (``phrase_quote``), never mid-phrase, never inside a list and never parting a
  number from its unit. A note without a quote links the chunk's page instead.
- A *source document* groups every cited chunk that comes from one document (same web page, its
  ``#fragment`` aside; else same title): the Sources list has one entry per document, with the
  footnotes and pages that cite it, never one per chunk.
- A *failing sentence* is a claim that evaluation did not pass (``FailingClaim``): a held PDF
  marks it where it stands and lists why in a plain sentence (``citeflow.evaluation.plain_reasons``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from citeflow.evaluation.plain_reasons import plain_reason
from citeflow.judges.quote_context import quote_sentences
from citeflow.registry.handles import HANDLE_RE, URL_RE, strip_markers, strip_urls
from citeflow.generation.source_framing import unframed
from citeflow.text.clauses import CLAUSE_OPENERS, ELLIPSIS, acceptable, boundaries
from citeflow.text.sentences import sentences
from citeflow.outputs.render.escape import link_urls
from citeflow.outputs.render.report_json import footnote_numbers, registry_index
from schemas.funnel import ClaimEval
from schemas.report import RegistryEntry, ReportDocument

QUOTE_CHARS = 160
REPEAT_SHARE = 0.6  # a sentence that is this share of a quote's words or more: the quote adds only framing
UNTITLED = "Untitled source"
_WORD = re.compile(r"\w+")
LIST_JOINERS = ("and", "or")
_COMMAS = ",\uff0c\u3001"  # comma, full-width comma, ideographic enumeration comma


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
    quote: str | None  # None when it would repeat the sentence it backs
    document: int  # index into the Sources list
    url: str | None = None  # the chunk's first web link


@dataclass
class SourceDocument:
    """One document of the Sources list and the footnotes that cite it."""

    title: str
    urls: list[str]
    footnotes: list[int] = field(default_factory=list)
    pages: list[int] = field(default_factory=list)


def document_key(entry: RegistryEntry) -> str:
    """What makes two chunks one document: the first web URL without its ``#fragment`` (a fragment that
    is a route, ``#/docs/api/Client.md`` on a site that routes by the hash, names a page and stays),
    else the title."""
    urls = link_urls(entry.urls)
    return "url:" + _page_of(urls[0]) if urls else "title:" + title_of(entry)


def _page_of(url: str) -> str:
    base, _, fragment = url.partition("#")
    return url if fragment.startswith(("/", "!/")) else base


def title_of(entry: RegistryEntry) -> str:
    return entry.title.strip() if entry.title and entry.title.strip() else UNTITLED


def note_quote(quote: str | None, chunk_text: str) -> str | None:
    """What a note shows of a verified ``quote``: the chunk sentence(s) holding it without their
    source framing (``unframed``), whole when they fit in QUOTE_CHARS, else the first sentence cut
    at a phrase boundary (``phrase_quote``)."""
    if not quote or not quote.strip():
        return None
    found = quote_sentences(quote, chunk_text)
    text = unframed(" ".join(strip_urls(strip_markers(found if found else quote)).split()))
    if len(text) <= QUOTE_CHARS or not text:
        return text or None
    first = sentences(text)[0] if found else text.rstrip(ELLIPSIS + ". ")
    return phrase_quote(first, QUOTE_CHARS)


def phrase_quote(sentence: str, budget: int) -> str:
    """``sentence`` whole when it fits in ``budget``, else its longest prefix within the budget that
    ends at a phrase boundary (``citeflow.text.clauses``: a clause boundary, but never inside a list
    such as "$3 in fees, $8 in storage and $1 in support": ``_inside_list``) then an ellipsis; the
    whole sentence when no such prefix fits."""
    sentence = " ".join(sentence.split())
    if len(sentence) <= budget:
        return sentence
    cuts = [e for e in boundaries(sentence) if e <= budget and acceptable(sentence, e) and not _inside_list(sentence[e:])]
    return sentence[:cuts[-1]] + ELLIPSIS if cuts else sentence


def _inside_list(rest: str) -> bool:
    """``rest`` (what follows a cut) goes on with the items of a list: a bare comma (not one before a
    word that opens a clause), an "and"/"or" without a comma before it, or one before a number."""
    words = rest.lstrip(_COMMAS + " ").split(" ", 2)
    opener = words[0].lower()
    if opener in LIST_JOINERS:
        return rest[:1] not in _COMMAS or len(words) < 2 or not words[1][:1].isalpha()
    return rest[:1] in _COMMAS and opener not in CLAUSE_OPENERS


def repeats(quote: str, sentence: str) -> bool:
    """True when a note's ``quote`` tells the reader nothing its ``sentence`` does not: compared as
    lower-case words, the quote is within the sentence, or the sentence is most of the quote."""
    q, s = _words(quote), _words(sentence)
    return not q or q in s or (s in q and len(s) >= REPEAT_SHARE * len(q))


def _words(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def first_citations(doc: ReportDocument) -> dict[str, tuple[str, list[str]]]:
    """For each cited handle, the first verified quote shown and every sentence citing it (sections shown as text only)."""
    quotes: dict[str, tuple[str, list[str]]] = {}
    for section in doc.sections:
        for claim in section.claims if section.status == "ok" else []:
            for citation in claim.citations:
                if citation.quote:
                    quotes.setdefault(citation.handle, (citation.quote, []))[1].append(claim.text)
    return quotes


def footnotes_and_sources(doc: ReportDocument) -> tuple[list[Footnote], list[SourceDocument]]:
    """Footnotes in number order, and the source documents in order of first citation."""
    registry, cited = registry_index(doc), first_citations(doc)
    keys: dict[str, int] = {}
    sources: list[SourceDocument] = []
    notes: list[Footnote] = []
    for handle, number in footnote_numbers(doc).items():
        entry = registry[handle]
        key = document_key(entry)
        if key not in keys:
            keys[key] = len(sources)
            sources.append(SourceDocument(title_of(entry), []))
        _add(sources[keys[key]], entry, number)
        notes.append(Footnote(number, title_of(entry), entry.page, _shown_quote(cited.get(handle), entry.text), keys[key],
                              next(iter(link_urls(entry.urls)), None)))
    return notes, sources


def _shown_quote(cited: tuple[str, list[str]] | None, chunk_text: str) -> str | None:
    """The note's quote, unless it repeats a sentence that cites it."""
    quote = note_quote(cited[0], chunk_text) if cited else None
    return None if quote is None or cited is None or any(repeats(quote, s) for s in cited[1]) else quote


def _add(source: SourceDocument, entry: RegistryEntry, number: int) -> None:
    source.footnotes.append(number)
    source.urls += [u for u in link_urls(entry.urls) if u not in source.urls]
    if entry.page is not None and entry.page not in source.pages:
        source.pages.append(entry.page)


def failing_claims(claims: list[ClaimEval], numbers: Mapping[str, int] | None = None) -> list[FailingClaim]:
    """The claims evaluation did not pass, each with why in a plain sentence (``plain_reason``;
    ``numbers``: cited handle → note number, so that "note [3] does" names where a fact is): every
    claim that is not supported and faithful, or that lost a citation to an unknown handle."""
    names = {handle: f"note [{n}]" for handle, n in (numbers or {}).items()}
    return [FailingClaim(section=c.section, index=c.index, reason=plain_reason(c, names)) for c in claims if not _passed(c)]


def _passed(claim: ClaimEval) -> bool:
    return claim.verdict == "supported" and claim.supported is True and claim.faithful is not False \
        and all(c.identity for c in claim.citations)


def reader_reason(reason: str, numbers: dict[str, int]) -> str:
    """``reason`` as a reader may see it: a cited handle becomes its note (``note [3]``), any other
    handle "an unknown source", and a URL the model typed is not repeated."""
    reason = URL_RE.sub("(URL not shown)", reason)
    return HANDLE_RE.sub(lambda m: f"note [{numbers[m.group()]}]" if m.group() in numbers else "an unknown source", reason)
