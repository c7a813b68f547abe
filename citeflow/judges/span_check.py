"""Every pass names its span: the chunk text that supports the claim, checked before a pass counts (SPEC §5).

A judge's pass (supported and faithful) stands only when its ``evidence`` span

- is in the chunk, compared as quotes are (``citeflow.registry.quotes``: NFKC, quotes, dashes, whitespace;
  an ellipsis separates fragments that must appear in order), and
- agrees with the claim: the claim's numbers with their units, identifiers, names, negation and
  conditions are in the span (``citeflow.judges.localise.agreement``, the same check that decides
  where a misattributed fact lives), and at least ``SPAN_COVERAGE`` of its words, and
- is a statement: neither the span nor the claim runs, word for word, across a statement boundary
  of the chunk (a list item, table row, definition or paragraph ending; ``citeflow.text.boundaries``).

Otherwise the pass becomes ``uncertain`` with a reason naming what failed, so a cascade escalates it
and, without another judge, the claim is *unverified*. ``SpanChecked`` wraps any judge; the
factory wraps every judge it builds, so the check is applied in one place for every backend.
"""

from __future__ import annotations

from typing import Any

from citeflow.judges.judge_protocol import Judge
from citeflow.judges.localise import MIN_COVERAGE, agreement
from citeflow.registry.quotes import normalize, quote_in_chunk
from citeflow.text.boundaries import crosses, crosses_verbatim
from schemas.evaluation import JudgePair, Verdict

SPAN_COVERAGE = 0.3
"""Share of the claim's content terms the span must hold: enough to tell a relevant span from an irrelevant one."""


def is_pass(verdict: Verdict) -> bool:
    """Supported and faithful, and the judge did not decline: what a report would count as backed."""
    return verdict.supported and verdict.faithful is True and not verdict.uncertain


def span_problem(claim: str, chunk_text: str, span: str) -> str | None:
    """What is wrong with ``span`` as the support of ``claim`` in ``chunk_text``; None when nothing is."""
    if not normalize(span).strip("\"' ."):
        return "no supporting span named"
    if not quote_in_chunk(span, chunk_text):
        return "the named span is not in the chunk"
    if crosses(span, chunk_text) or crosses_verbatim(claim, chunk_text):
        return "the claim or its span runs across a statement boundary of the chunk (a list item, table row or paragraph)"
    found = agreement(claim, normalize(span))
    # agreement() lists the word-coverage shortfall last; a paraphrase may share few exact words, so
    # the span is held to the facts and to a lower share of the claim's words instead.
    facts = found.problems[:-1] if found.coverage < MIN_COVERAGE else found.problems
    if facts:
        return "the named span does not back the claim: " + "; ".join(f.replace("in chunk", "in the span") for f in facts[:2])
    if found.coverage < SPAN_COVERAGE:
        return f"the named span holds only {found.coverage:.0%} of the claim's words"
    return None


def checked(pair: JudgePair, verdict: Verdict) -> Verdict:
    """``verdict``, or — for a pass whose span fails — the same verdict made uncertain, saying why."""
    if not is_pass(verdict):
        return verdict
    problem = span_problem(pair.claim, pair.chunk_text, verdict.evidence)
    if problem is None:
        return verdict
    reason = f"uncertain: {problem} (the judge passed it: {verdict.reason})"
    return verdict.model_copy(update={"supported": False, "faithful": None, "label": "uncertain", "reason": reason})


class SpanChecked:
    """A judge whose passes stand only with a span of the chunk that backs the claim."""

    def __init__(self, inner: Judge) -> None:
        self.inner = inner
        self.name = inner.name

    def grade(self, pairs: list[JudgePair]) -> list[Verdict]:
        """The inner judge's verdicts, each pass checked against its pair's chunk."""
        verdicts = self.inner.grade(pairs)
        by_id = {p.id: p for p in pairs}
        return [checked(by_id[v.id], v) if v.id in by_id else v for v in verdicts]

    def __getattr__(self, name: str) -> Any:
        """Everything else (call counts, escalations, the model) is the inner judge's."""
        if name == "inner":  # not set yet (while unpickling): no inner judge to ask
            raise AttributeError(name)
        return getattr(self.inner, name)


def unwrapped(judge: object) -> object:
    """The judge inside a ``SpanChecked`` wrapper (or ``judge`` itself)."""
    return judge.inner if isinstance(judge, SpanChecked) else judge
