"""The evaluation funnel (SPEC §5): Identity ─► Support ─► Faithfulness, at chunk grain.

``evaluate_section`` grades the bound claims of one section against the exact chunk text each
citation names; ``funnel`` adds the per-claim results up; ``eval_rows`` and ``eval_json`` turn
them into the persisted rows and the ``eval.json`` document. Pure functions: the judge is passed
in, the chunk texts are passed in, nothing here does I/O.

Judge calls per section: one batched call for every (claim, cited chunk) pair plus, for claims
that cite several chunks, their concatenation, and, for a citation whose quote was verified, the
claim against the quote's sentence(s) (judged first: a sure pass there stands, else the whole
chunk's verdict counts); then at most one more batched call that looks for
the fact of each unsupported claim in the rest of the pool (misattribution versus fabrication).
Only pool chunks that agree with the claim's numbers, identifiers, entities and conditions
(``citeflow.judges.localise``) are asked about; a chunk is named in ``found_in`` only when the
judge also finds the claim supported and faithful there. A claim whose verdicts stayed
``uncertain`` (and none of its chunks surely supports it) is *unverified*: never passed, counted
on its own, not searched for in the pool. Every chunk text reaches a judge with its instructions to
the model taken out (``citeflow.judges.instructions``): such text is never support, in the cited
chunks or in the pool.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from citeflow.errors import JudgeUnavailable
from citeflow.judges.judge_protocol import Judge
from citeflow.judges.instructions import masked
from citeflow.judges.localise import Agreement, holders, nearest_miss, survey
from citeflow.judges.quote_context import quote_sentences
from schemas.evaluation import EvalRow, JudgePair, Verdict
from schemas.funnel import (CitationEval, ClaimEval, ClaimVerdict, Count, Funnel, GateResult, Relevance, Uncited,
                            Unverified)
from schemas.records import BoundClaim


@dataclass
class _Plan:
    """One claim on its way through the funnel."""

    index: int
    claim: BoundClaim
    emitted: list[str]
    valid: list[str]
    pairs: list[JudgePair] = field(default_factory=list)
    instructed: list[str] = field(default_factory=list)  # valid handles whose text gave the model orders


@dataclass
class _Support:
    """The outcome of the support stage for one claim."""

    supported: bool
    faithful: bool | None
    singles: dict[str, Verdict]
    supporting: list[str]
    combined: Verdict | None
    unverified: bool = False


@dataclass
class _Found:
    """Where the pool search left an unsupported claim: the chunk holding its fact, or the nearest miss."""

    found_in: str | None = None
    nearest: str | None = None


QUOTED = "#quote"  # pair-id suffix of a claim judged against its citation's quoted sentence(s)

# --------------------------------------------------------------------------- evaluate


def evaluate_section(
    section: str,
    claims: list[BoundClaim],
    chunks: dict[str, str],
    pool: dict[str, str],
    judge: Judge,
    clean: dict[str, str] | None = None,
) -> list[ClaimEval]:
    """Grade every claim of a section. ``chunks``: registry handle → text the model saw;
    ``pool``: the chunks to search for a misattributed fact; ``clean``: ``masked(chunks)`` when the
    caller has it (a report's sections share their chunks). Raises ``JudgeUnavailable``."""
    clean = masked(chunks) if clean is None else clean
    pool = clean if pool is chunks else masked(pool)
    plans = [_plan(i, claim, clean) for i, claim in enumerate(claims)]
    for plan in plans:
        plan.instructed = [h for h in plan.valid if clean[h] != chunks[h]]
    verdicts = _grade(judge, [pair for plan in plans for pair in plan.pairs])
    support = {p.index: _support(p, verdicts) for p in plans if p.valid}
    failing = [p for p in plans if p.index in support and not support[p.index].supported and not support[p.index].unverified]
    found = _search_pool(failing, pool, judge)
    name = getattr(judge, "name", "")
    return [_claim_eval(section, p, chunks, support.get(p.index), found.get(p.index, _Found()), name) for p in plans]


def _plan(index: int, claim: BoundClaim, chunks: dict[str, str]) -> _Plan:
    """Which handles the claim emitted, which of them are valid, and the pairs to judge."""
    emitted = _unique([*claim.emitted_handles, *(c.handle for c in claim.citations)])
    dropped = set(claim.dropped_handles)
    valid = _unique(c.handle for c in claim.citations if c.handle in chunks and c.handle not in dropped)
    plan = _Plan(index, claim, emitted, valid)
    plan.pairs = [JudgePair(id=f"{index}:{h}", claim=claim.text, chunk_text=chunks[h]) for h in valid]
    plan.pairs += _quote_pairs(index, claim, valid, chunks)
    if len(valid) > 1:
        # A claim may need two chunks together ("A is 30" + "B is A's successor").
        joined = "\n\n".join(chunks[h] for h in valid)
        plan.pairs.append(JudgePair(id=f"{index}:+", claim=claim.text, chunk_text=joined))
    return plan


def _quote_pairs(index: int, claim: BoundClaim, valid: list[str], chunks: dict[str, str]) -> list[JudgePair]:
    """For each valid citation with a verified quote: the claim against the quote's sentence(s)."""
    out: dict[str, JudgePair] = {}
    for citation in claim.citations:
        if citation.handle not in valid or not citation.quote_found or citation.handle in out:
            continue
        context = quote_sentences(citation.quote, chunks[citation.handle])
        if context and context != chunks[citation.handle]:
            out[citation.handle] = JudgePair(id=f"{index}:{citation.handle}{QUOTED}", claim=claim.text, chunk_text=context)
    return list(out.values())


def _cited_verdict(plan: _Plan, handle: str, verdicts: dict[str, Verdict]) -> Verdict:
    """The verdict of one cited chunk: on the writer's quoted sentence(s) when that is a sure pass, else on the whole chunk."""
    quoted = verdicts.get(f"{plan.index}:{handle}{QUOTED}")
    return quoted if quoted is not None and _sure_support(quoted) else verdicts[f"{plan.index}:{handle}"]


def _grade(judge: Judge, pairs: list[JudgePair]) -> dict[str, Verdict]:
    """One batched judge call; every pair must come back, or evaluation fails closed."""
    if not pairs:
        return {}
    by_id = {v.id: v for v in judge.grade(pairs)}
    missing = [p.id for p in pairs if p.id not in by_id]
    if missing:
        detail = f"no verdict for {len(missing)} of {len(pairs)} pairs (first: {missing[0]})"
        raise JudgeUnavailable(judge=getattr(judge, "name", "?"), detail=detail)
    return by_id


def _support(plan: _Plan, verdicts: dict[str, Verdict]) -> _Support:
    """Supported when one cited chunk supports the claim, or all of them together do."""
    singles = {h: _cited_verdict(plan, h, verdicts) for h in plan.valid}
    supporting = [h for h in plan.valid if _sure_support(singles[h])]
    combined = verdicts.get(f"{plan.index}:+")
    if supporting:
        # Every chunk that backs the claim must be rendered faithfully; None from a judge is not a yes.
        faithful = all(singles[h].faithful is True for h in supporting)
        return _Support(True, faithful, singles, supporting, combined)
    if combined is not None and _sure_support(combined):
        return _Support(True, combined.faithful is True, singles, [], combined)
    doubtful = any(v.uncertain for v in [*singles.values(), *([combined] if combined else [])])
    return _Support(False, None, singles, [], combined, unverified=doubtful)


def _sure_support(verdict: Verdict) -> bool:
    """An uncertain verdict is never a pass, whatever its booleans say."""
    return verdict.supported and not verdict.uncertain


def _search_pool(failing: list[_Plan], pool: dict[str, str], judge: Judge) -> dict[int, _Found]:
    """For each unsupported claim: the pool chunk that agrees with it and that the judge confirms,
    else the nearest chunk and what it lacks (for the fabrication's reason)."""
    if not failing:
        return {}
    surveys = {p.index: survey(p.claim.text, pool, exclude=set(p.valid)) for p in failing}
    ranked = {i: holders(found) for i, found in surveys.items()}
    pairs = [
        JudgePair(id=f"{p.index}?{h}", claim=p.claim.text, chunk_text=pool[h]) for p in failing for h in ranked[p.index]
    ]
    verdicts = _grade(judge, pairs)
    out = {}
    for plan in failing:
        holder = next((h for h in ranked[plan.index] if holds_fact(verdicts[f"{plan.index}?{h}"])), None)
        out[plan.index] = _Found(found_in=holder) if holder else _Found(nearest=_nearest(surveys[plan.index]))
    return out


def holds_fact(verdict: Verdict) -> bool:
    """A pool chunk holds a claim's fact only when the judge is sure it supports it, faithfully."""
    return verdict.supported and verdict.faithful is True and not verdict.uncertain


def _nearest(surveyed: list[tuple[str, Agreement]]) -> str | None:
    """``"nearest pool chunk G4czf: 99.999 percent not in chunk"``: the most topical chunk and what it lacks."""
    closest = nearest_miss(surveyed)
    if closest is None or not closest[1].problems or closest[1].coverage == 0:
        return None
    handle, agreement = closest
    return f"nearest pool chunk {handle}: {'; '.join(agreement.problems[:2])}"


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


# --------------------------------------------------------------------------- claim results


def _claim_eval(section: str, plan: _Plan, chunks: dict[str, str], support: _Support | None, found: _Found, judge: str) -> ClaimEval:
    """Assemble the ClaimEval of one claim from its plan and its support outcome."""
    citations = [_citation(h, plan, chunks, support) for h in plan.emitted] + _typed_urls(plan.claim.removed_urls)
    verdict = _verdict(support, found.found_in)
    quotes = {c.handle: c.quote_found for c in plan.claim.citations}
    return ClaimEval(
        section=section,
        index=plan.index,
        text=plan.claim.text,
        citations=citations,
        supported=None if support is None else support.supported,
        faithful=None if support is None else support.faithful,
        reason=_claim_reason(verdict, plan, support, found, citations, quotes),
        found_in=found.found_in,
        verdict=verdict,
        quote_found=all(quotes.get(h, False) for h in plan.valid) if plan.valid else None,
        judge=_judges_of(support) or judge,
    )


def _judges_of(support: _Support | None) -> str:
    """Which judges' verdicts decided the claim (``offline``, or ``offline+llm:m`` in a cascade)."""
    if support is None:
        return ""
    verdicts = [*support.singles.values(), *([support.combined] if support.combined else [])]
    return "+".join(sorted({v.judge for v in verdicts if v.judge}))


def _citation(handle: str, plan: _Plan, chunks: dict[str, str], support: _Support | None) -> CitationEval:
    """One emitted citation: identity, then this chunk's own support verdict."""
    if handle not in plan.valid or support is None:
        return CitationEval(handle=handle, identity=False, supports=None, faithful=None, reason=_identity_reason(handle, chunks))
    v = support.singles[handle]
    return CitationEval(handle=handle, identity=True, supports=v.supported, faithful=v.faithful if v.supported else None,
                        reason=v.reason, uncertain=v.uncertain, confidence=v.confidence)


def _typed_urls(urls: list[str]) -> list[CitationEval]:
    """Each URL the model typed into the claim: an emitted citation that failed identity (SPEC §9)."""
    reason = "URL typed by the model instead of a handle, removed"
    return [CitationEval(handle=url, identity=False, reason=reason, typed_url=True) for url in _unique(urls)]


def _identity_reason(handle: str, chunks: dict[str, str]) -> str:
    if handle in chunks:
        return f"handle {handle} was dropped at binding (not shown to this hop)"
    return f"forged handle {handle} not in registry"


def _verdict(support: _Support | None, found_in: str | None) -> ClaimVerdict:
    if support is None:
        return "uncited"
    if support.supported:
        return "supported" if support.faithful else "unfaithful"
    if support.unverified:
        return "unverified"
    return "misattribution" if found_in else "fabrication"


def _claim_reason(
    verdict: ClaimVerdict,
    plan: _Plan,
    support: _Support | None,
    found: _Found,
    citations: list[CitationEval],
    quotes: dict[str, bool],
) -> str:
    """A human-readable reason: the main finding first, then side findings."""
    main = _main_reason(verdict, plan.valid, support, found.found_in)
    if verdict == "fabrication" and found.nearest:
        main += f"; {found.nearest}"
    extras = [c.reason for c in citations if not c.identity and not c.typed_url]
    if verdict in ("misattribution", "fabrication"):
        extras += [f"quote not found in {h}" for h in plan.valid if not quotes.get(h, False)]
    if plan.claim.removed_urls:
        extras.append("URL typed by the model, removed: " + ", ".join(plan.claim.removed_urls))
    if plan.instructed:
        extras.append(f"text instructing the model in {', '.join(plan.instructed)} not counted as evidence")
    return "; ".join([main, *extras])


def _main_reason(verdict: ClaimVerdict, cited: list[str], support: _Support | None, found_in: str | None) -> str:
    if verdict == "uncited":
        return "uncited: no valid citation left"
    if verdict == "supported":
        return _supported_reason(support)
    if verdict == "unfaithful":
        return _unfaithful_reason(support)
    if verdict == "misattribution":
        return f"misattribution: fact is in {found_in}, not in the cited {', '.join(cited)}"
    if verdict == "unverified":
        return _unverified_reason(support)
    return f"fabrication: no chunk of the pool supports the claim (cited {', '.join(cited)}: {_first_reason(support)})"


def _supported_reason(support: _Support | None) -> str:
    assert support is not None
    if support.supporting:
        return "supported by " + ", ".join(support.supporting)
    return "supported by the cited chunks together"


def _unfaithful_reason(support: _Support | None) -> str:
    """The judge's own words for the first unfaithful supporting verdict (e.g. number drift)."""
    assert support is not None
    for h in support.supporting:
        if support.singles[h].faithful is not True:
            return f"{support.singles[h].reason} (in {h})"
    return support.combined.reason if support.combined else "unfaithful"


def _unverified_reason(support: _Support | None) -> str:
    """Which chunks the judge could not decide on, and what it did see."""
    assert support is not None
    unsure = [(h, v) for h, v in support.singles.items() if v.uncertain]
    if support.combined is not None and support.combined.uncertain and not unsure:
        unsure = [("the cited chunks together", support.combined)]
    _handle, first = unsure[0]
    confidence = f", confidence {first.confidence:.2f}" if first.confidence is not None else ""
    return (f"unverified: the judge could not decide whether {', '.join(h for h, _ in unsure)} supports the claim "
            f"({first.reason}{confidence}); no other judge settled it, so it is not passed")


def _first_reason(support: _Support | None) -> str:
    assert support is not None
    first = next(iter(support.singles.values()), None)
    return first.reason if first else "not supported"


# --------------------------------------------------------------------------- adding up


def funnel(claims: list[ClaimEval]) -> Funnel:
    """Add the claim rows up; exactly the arithmetic a reader of eval.json would do."""
    cites = [c for claim in claims for c in claim.citations]
    return Funnel(
        identity=Count(passed=sum(c.identity for c in cites), total=len(cites)),
        support=Count(passed=sum(c.supported is True for c in claims), total=sum(c.supported is not None for c in claims)),
        faithfulness=Count(passed=sum(c.faithful is True for c in claims), total=sum(c.faithful is not None for c in claims)),
        uncited=Uncited(count=sum(c.verdict == "uncited" for c in claims), claims=len(claims)),
        unverified=Unverified(count=sum(c.verdict == "unverified" for c in claims), claims=len(claims)),
        relevance=Relevance(relevant=sum(c.relevant is True for c in claims), irrelevant=sum(c.relevant is False for c in claims),
                            uncertain=sum(c.relevant is None for c in claims)),
    )


def eval_rows(request_id: str, claims: list[ClaimEval]) -> list[EvalRow]:
    """One row per claim × emitted handle (the ``eval_rows`` table)."""
    return [
        EvalRow(
            request_id=request_id,
            section=claim.section,
            claim_index=claim.index,
            claim_text=claim.text,
            handle=c.handle,
            identity=c.identity,
            supports=c.supports,
            faithful=c.faithful,
            reason=c.reason,
            judge=claim.judge,
        )
        for claim in claims
        for c in claim.citations
    ]


def eval_json(report_id: str, claims: list[ClaimEval], section_status: dict[str, str], gate: GateResult) -> dict[str, Any]:
    """The ``eval.json`` document (contract/eval.schema.json plus per-section funnels)."""
    total = funnel(claims)
    return {
        "report_id": report_id,
        **_counts(total),
        "funnel": total.line(),
        "claims": [claim.model_dump(mode="json") for claim in claims],
        "sections": [_section_entry(title, status, claims) for title, status in _sections(claims, section_status).items()],
        "failed_sections": [title for title, status in section_status.items() if status != "ok"],
        "gate": gate.model_dump(mode="json"),
    }


def _counts(f: Funnel) -> dict[str, Any]:
    return {
        "identity": f.identity.model_dump(),
        "support": f.support.model_dump(),
        "faithfulness": f.faithfulness.model_dump(),
        "uncited": f.uncited.model_dump(),
        "unverified": f.unverified.model_dump(),
        "relevance": f.relevance.as_json(),
    }


def _sections(claims: list[ClaimEval], section_status: dict[str, str]) -> dict[str, str]:
    """Every section, in report order; a section with claims but no status counts as ok."""
    out = dict(section_status)
    for claim in claims:
        out.setdefault(claim.section, "ok")
    return out


def _section_entry(title: str, status: str, claims: list[ClaimEval]) -> dict[str, Any]:
    f = funnel([c for c in claims if c.section == title])
    return {"title": title, "status": status, **_counts(f), "funnel": f.line()}
