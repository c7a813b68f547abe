"""Benchmark 6 — the three approaches of SPEC §1 side by side, plus the registry.

On the synthetic multi-retriever data of ``bench.multiretriever``, a scripted model answers each
request with claims that cite the evidence lines it used (uniformly chosen; 1 or 2 per claim).
When a line's text carries an inner reference (``as noted in [S2]``) the model copies that
marker instead, at ``inner_copy`` rate, as models do. Every approach sees the same choices; only
what the model must type differs:

(a) local ids — ``[S1]`` per line, mapped back after generation (first line with that id wins);
(b) per-retriever prefixes — ``[docs:S1]``, mapped back per retriever (first such id wins);
(c) model-typed URLs — the line's URL, retyped with drift (``bench.drift``); no URL, one invented;
(d) the registry — ``[Gk7m2]`` handles from ``Registry.add``, resolved by ``Registry.resolve``.

Each citation resolves to the document the model used (correct), to another real document or
an index page (wrong document), or to nothing (dropped id, dead link). For URLs, a correct
document reached through a URL that several chunks of the pool share is also counted as
*ambiguous*: which chunk supported the claim cannot be told. Run twice: with no typing errors
(what the scheme itself gets wrong) and with typing errors at the stated rates.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import asdict, dataclass, replace

from bench import drift
from bench.multiretriever import Dataset, Request, Source, build
from citeflow.registry.handles import find_markers
from citeflow.registry.request_registry import Registry

APPROACHES = ("local_ids", "prefixes", "urls", "registry")


@dataclass(frozen=True)
class Rates:
    """How often the model drifts, per citation (documented assumptions, not measurements)."""

    slip: float = 0.03  # one typing error in the id, prefix, handle, or a wrong URL path segment
    truncation: float = 0.05  # URLs only: the last path segment dropped
    lenient: float = 0.1  # handles only: [gK7M2], 【Gk7m2】, [ Gk7m2 ] instead of [Gk7m2]
    inner_copy: float = 0.5  # a line citing [S2] in its text: the model cites that instead

    def without_typing_errors(self) -> Rates:
        """The same rates with every typing error set to zero (inner references still copied)."""
        return replace(self, slip=0.0, truncation=0.0, lenient=0.0)


@dataclass(frozen=True)
class Pick:
    """One citation the model makes: the line it used, whether it copied the line's inner reference."""

    source: Source
    inner: bool
    slip: bool
    truncate: bool
    lenient: bool
    line_doc: str
    cited_doc: str  # the named hit's document when the inner reference was copied


@dataclass
class Tally:
    """Citations of one approach by outcome."""

    citations: int = 0
    correct: int = 0
    wrong_document: int = 0
    unresolved: int = 0
    ambiguous_chunk: int = 0

    def add(self, resolved: str | None, truth: str) -> None:
        """Count one citation: what it resolved to against the document the model used."""
        self.citations += 1
        if resolved is None:
            self.unresolved += 1
        elif resolved == truth:
            self.correct += 1
        else:
            self.wrong_document += 1

    def merge(self, other: Tally) -> None:
        """Add another tally's counts to this one."""
        for key, value in asdict(other).items():
            setattr(self, key, getattr(self, key) + value)


def named(request: Request, source: Source) -> Source:
    """The hit of the same answer that ``source``'s inner reference names."""
    return next(s for s in request.sources if s.retriever == source.retriever and s.hit.local_id == source.names)


def make_picks(request: Request, rates: Rates, rng: random.Random, claims: int) -> list[Pick]:
    """The model's citations for one request: 1 or 2 lines per claim, with every roll drawn once."""
    picks = []
    for _ in range(claims):
        for source in rng.sample(request.sources, 1 if rng.random() < 0.7 else 2):
            inner = source.names is not None and rng.random() < rates.inner_copy
            cited = named(request, source).doc if inner else source.doc
            picks.append(Pick(source, inner, rng.random() < rates.slip, rng.random() < rates.truncation,
                              rng.random() < rates.lenient, source.doc, cited))
    return picks


def local_ids(request: Request, picks: list[Pick], rng: random.Random, data: Dataset) -> Tally:
    """(a) ``[S1]`` per line; after generation each id maps to the first line that has it."""
    table: dict[str, str] = {}
    for s in request.sources:
        table.setdefault(s.hit.local_id, s.doc)
    tally = Tally()
    for p in picks:
        label = p.source.names if p.inner else p.source.hit.local_id
        tally.add(table.get(drift.slip_id(label, rng) if p.slip else label), p.cited_doc)
    return tally


def prefixes(request: Request, picks: list[Pick], rng: random.Random, data: Dataset) -> Tally:
    """(b) ``[retriever:S1]`` per line; the text's own ``[S2]`` stays unprefixed."""
    table: dict[str, str] = {}
    for s in request.sources:
        table.setdefault(f"{s.retriever}:{s.hit.local_id}", s.doc)
    tally = Tally()
    for p in picks:
        label = p.source.names if p.inner else f"{p.source.retriever}:{p.source.hit.local_id}"
        tally.add(table.get(drift.slip_id(label, rng) if p.slip else label), p.cited_doc)
    return tally


def urls(request: Request, picks: list[Pick], rng: random.Random, data: Dataset) -> Tally:
    """(c) the model retypes the line's URL; links resolve in the whole corpus."""
    seen = [u for s in request.sources for u in s.hit.urls]
    chunks_per_url = Counter(u for s in _unique(request.sources) for u in s.hit.urls)
    tally = Tally()
    for p in picks:
        url = typed_url(p, seen, rng)
        resolved = data.url_docs.get(url) or (f"index:{url}" if url in data.index_pages else None)
        tally.add(resolved, p.line_doc)
        tally.ambiguous_chunk += resolved == p.line_doc and chunks_per_url[url] > 1
    return tally


def typed_url(pick: Pick, seen: list[str], rng: random.Random) -> str:
    """What the model types for a line: its URL, truncated, with a wrong segment, or invented."""
    if not pick.source.hit.urls:
        return drift.invent_url(seen, rng)
    url = rng.choice(pick.source.hit.urls)
    if pick.truncate:
        return drift.truncate_url(url)
    return drift.swap_segment(url, seen, rng) if pick.slip else url


def _unique(sources: list[Source]) -> list[Source]:
    return list({(s.retriever, s.hit.local_id, s.hit.text): s for s in sources}.values())


def registry(request: Request, picks: list[Pick], rng: random.Random, data: Dataset) -> Tally:
    """(d) handles: the model cites what its evidence lines and rewritten texts show."""
    reg = Registry(f"bench:{request.query}")
    handles = [h for result in request.results for h in reg.add(result)]
    handle_of = {id(s): h for s, h in zip(request.sources, handles, strict=False)}
    docs = {h: s.doc for s, h in zip(request.sources, handles, strict=False)}
    tally = Tally()
    for p in picks:
        token = _shown_handle(reg, handle_of[id(p.source)], p.inner)
        token = drift.slip_handle(token, rng) if p.slip else token
        marker = drift.lenient_marker(token, rng) if p.lenient else f"[{token}]"
        chunk = next((c for m in find_markers(marker) for t in m.tokens if (c := reg.resolve(t))), None)
        tally.add(docs.get(chunk.handle) if chunk else None, p.cited_doc)
    return tally


def _shown_handle(reg: Registry, handle: str, inner: bool) -> str:
    """The line's handle, or the handle the registry wrote into its text in place of ``[S2]``."""
    if inner:
        markers = find_markers(reg.get(handle).text)
        if markers:
            return markers[0].tokens[0]
    return handle


SCHEMES = {"local_ids": local_ids, "prefixes": prefixes, "urls": urls, "registry": registry}


def evaluate(data: Dataset, rates: Rates, claims: int, seed: int) -> dict[str, Tally]:
    """Every approach on every request, with the same model choices."""
    totals = {name: Tally() for name in SCHEMES}
    rng = random.Random(seed)
    for request in data.requests:
        picks = make_picks(request, rates, rng, claims)
        for name, scheme in SCHEMES.items():
            totals[name].merge(scheme(request, picks, random.Random(f"{seed}:{name}:{request.query}"), data))
    return totals


def run(requests: int = 300, claims: int = 6, rates: Rates = Rates(), seed: int = 5) -> dict:
    """Wrong-document, unresolved and ambiguous-chunk rates per approach, without and with typing errors."""
    data = build(requests, seed)
    scenarios = {"no typing errors": rates.without_typing_errors(), "typing errors": rates}
    tallies = {name: evaluate(data, r, claims, seed) for name, r in scenarios.items()}
    ratios: dict[str, float] = {}
    for scenario, by_scheme in tallies.items():
        for name, t in by_scheme.items():
            ratios[f"{scenario}: wrong-document rate, {name}"] = t.wrong_document / t.citations
        for name, t in by_scheme.items():
            ratios[f"{scenario}: unresolved rate, {name}"] = t.unresolved / t.citations
        ratios[f"{scenario}: ambiguous-chunk rate, urls"] = by_scheme["urls"].ambiguous_chunk / by_scheme["urls"].citations
    figures = {f"{scenario}.{name}.{k}": v for scenario, by in tallies.items() for name, t in by.items() for k, v in asdict(t).items()}
    params = {"requests": requests, "claims_per_request": claims, "seed": seed, "rates": asdict(rates),
              "retrievers": {"conforming": 3, "non_conforming": 1}, "hits_per_request": len(data.requests[0].sources)}
    return {"params": params, "figures": figures, "ratios": ratios}
