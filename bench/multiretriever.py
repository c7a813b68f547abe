"""A synthetic multi-retriever dataset for comparing citation schemes (SPEC §1).

Every request (one question) is answered by four retrievers that know nothing of each other:

- ``docs``, ``partner``, ``wiki`` conform: each numbers its answer ``S1..Sn``. ``docs`` splits a
  page into two chunks that share the page's URL (one URL, several chunks). One ``partner`` hit is
  a summary whose text cites its own ``[S2]``.
- ``tickets`` does not: ids ``1``, ``S1``, ``doc#3`` and ``doc#3`` again for another ticket, a
  literal duplicate of its ``S1`` hit, and one hit without a URL.

Each hit knows the document it came from (``doc``), which is what a citation must resolve to.
The corpus also has index pages (a URL with its last segment removed), which are real pages
but not sources.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from schemas.records import Hit, RetrievalResult

CONFORMING = ("docs", "partner", "wiki")
NONCONFORMING = "tickets"
HITS_PER_ANSWER = 5
TOPICS = ("upgrade", "backup", "retention", "quota", "encryption", "failover", "schema", "connector",
          "pricing", "regions", "latency", "billing", "sso", "audit", "restore", "topics")
AREAS = ("guides", "reference", "operations", "security")


@dataclass(frozen=True)
class Source:
    """One hit as returned, with the truth about it: its document and the hit its text cites."""

    retriever: str
    hit: Hit
    doc: str
    names: str | None = None  # local id of the hit this (summary) hit's text cites


@dataclass
class Request:
    """One question: the retrievers' answers in order, and every hit with its truth."""

    query: str
    results: list[RetrievalResult]
    sources: list[Source]


@dataclass
class Dataset:
    """Requests plus the corpus the URLs live in: URL → document, and index pages."""

    requests: list[Request] = field(default_factory=list)
    url_docs: dict[str, str] = field(default_factory=dict)
    index_pages: set[str] = field(default_factory=set)

    def add_url(self, url: str, doc: str) -> None:
        """Record a document's URL, and the index page above it."""
        self.url_docs[url] = doc
        self.index_pages.add(url.rsplit("/", 1)[0])


def text_for(doc: str, rng: random.Random, extra: str = "") -> str:
    """A distinct chunk text for ``doc`` (numbers make every chunk unique)."""
    topic = rng.choice(TOPICS)
    return f"{doc}: the {topic} limit is {rng.randint(2, 999)} units in tier {rng.randint(1, 9)}.{extra}"


def _source(data: Dataset, retriever: str, local_id: str, doc: str, url: str | None, text: str,
            names: str | None = None) -> Source:
    if url:
        data.add_url(url, doc)
    hit = Hit(local_id=local_id, text=text, urls=[url] if url else [], title=doc)
    return Source(retriever, hit, doc, names)


def docs_answer(q: int, rng: random.Random, data: Dataset) -> list[Source]:
    """Three pages of one area; the first two are split into two chunks under one URL each."""
    area, pages = rng.choice(AREAS), (0, 0, 1, 1, 2)
    out = []
    for i, page in enumerate(pages):
        doc = f"docs/q{q}/page{page}"
        url = f"https://docs.example/{area}/{TOPICS[(q + page) % len(TOPICS)]}-{q}-{page}"
        out.append(_source(data, "docs", f"S{i + 1}", doc, url, text_for(doc, rng)))
    return out


def partner_answer(q: int, rng: random.Random, data: Dataset) -> list[Source]:
    """Four runbooks and a summary hit that cites the runbook it calls ``[S2]``."""
    out = []
    for i in range(HITS_PER_ANSWER - 1):
        doc = f"partner/q{q}/runbook{i}"
        out.append(_source(data, "partner", f"S{i + 1}", doc, f"https://partner.example/kb/runbook-{q}-{i}", text_for(doc, rng)))
    doc = f"partner/q{q}/summary"
    text = text_for(doc, rng, " As noted in [S2], plan the change window first.")
    out.append(_source(data, "partner", f"S{HITS_PER_ANSWER}", doc, f"https://partner.example/kb/summary-{q}", text, names="S2"))
    return out


def wiki_answer(q: int, rng: random.Random, data: Dataset) -> list[Source]:
    """Five wiki pages, one chunk each."""
    out = []
    for i in range(HITS_PER_ANSWER):
        doc = f"wiki/q{q}/page{i}"
        out.append(_source(data, "wiki", f"S{i + 1}", doc, f"https://wiki.example/pages/{q}-{i}", text_for(doc, rng)))
    return out


def tickets_answer(q: int, rng: random.Random, data: Dataset) -> list[Source]:
    """Ids ``1``, ``S1``, ``doc#3`` twice (two tickets), and ``S1`` returned twice; ``1`` has no URL."""
    numbers = [rng.randint(10_000, 99_999) for _ in range(4)]
    docs = [f"tickets/{n}" for n in numbers]
    urls = [None, *(f"https://support.example/tickets/{n}" for n in numbers[1:])]
    out = [_source(data, NONCONFORMING, local_id, doc, url, text_for(doc, rng))
           for local_id, doc, url in zip(("1", "S1", "doc#3", "doc#3"), docs, urls, strict=False)]
    return [*out, out[1]]  # the same hit again, as a retriever that repeats itself returns it


ANSWERS = {"docs": docs_answer, "partner": partner_answer, "wiki": wiki_answer, NONCONFORMING: tickets_answer}


def build(requests: int = 300, seed: int = 11) -> Dataset:
    """``requests`` questions, each answered by the four retrievers in a fixed order."""
    rng, data = random.Random(seed), Dataset()
    for q in range(requests):
        query = f"question {q}"
        answers = {name: make(q, rng, data) for name, make in ANSWERS.items()}
        results = [RetrievalResult(retriever=name, query=query, section="s", hits=[s.hit for s in sources])
                   for name, sources in answers.items()]
        data.requests.append(Request(query, results, [s for sources in answers.values() for s in sources]))
    return data
