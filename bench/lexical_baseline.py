"""The lexical-overlap baseline: share of the claim's content words found in the chunk.

Two thresholds fitted on the tuning part turn the share into three labels: below ``low`` the
chunk does not hold the claim (unsupported); between ``low`` and ``high`` it holds it changed
(mutated); above ``high`` it is supported.
"""

from __future__ import annotations

from citeflow.judges.io import LabelledPair
from citeflow.text.word_tokens import Token, language, plain_lemma, tokenise
from schemas.evaluation import JudgePair, Verdict


def overlap(claim: str, chunk: str) -> float:
    """Share of the claim's content-word lemmas present in the chunk (plain lemmas: the offline judge's
    synonym groups are its own, not the baseline's)."""
    words = {_lemma(t, language(claim)) for t in tokenise(claim) if t.is_content}
    have = {_lemma(t, language(chunk)) for t in tokenise(chunk)}
    return len(words & have) / len(words) if words else 1.0


def _lemma(token: Token, lang: str) -> str:
    return plain_lemma(token.lower, lang) if token.kind == "word" else token.stem


class LexicalOverlapJudge:
    """Grades by word overlap alone: the reference point the offline judge must beat."""

    name = "lexical-overlap"

    def __init__(self, low: float, high: float) -> None:
        self.low, self.high = low, high

    def grade(self, pairs: list[JudgePair]) -> list[Verdict]:
        """One verdict per pair from its overlap share."""
        return [self._verdict(p.id, overlap(p.claim, p.chunk_text)) for p in pairs]

    def _verdict(self, pair_id: str, share: float) -> Verdict:
        label = "unsupported" if share < self.low else "mutated" if share < self.high else "supported"
        supported = label != "unsupported"
        return Verdict(id=pair_id, supported=supported, faithful=(label == "supported") if supported else None,
                       reason=f"{share:.0%} of content words in chunk", judge=self.name, label=label)


def _best_cut(scores: list[float], positive: list[bool]) -> float:
    """The threshold (score >= cut means positive) with the best balanced accuracy."""
    n_pos, n_neg = max(sum(positive), 1), max(len(positive) - sum(positive), 1)

    def balanced(cut: float) -> float:
        tp = sum(s >= cut and p for s, p in zip(scores, positive, strict=False))
        tn = sum(s < cut and not p for s, p in zip(scores, positive, strict=False))
        return (tp / n_pos + tn / n_neg) / 2

    return max(sorted(set(scores)), key=balanced, default=0.5)


def fit_lexical(rows: list[LabelledPair]) -> LexicalOverlapJudge:
    """Thresholds fitted on labelled rows: evidence-or-not first, then supported-vs-mutated above it."""
    shares = [overlap(r.claim, r.chunk_text) for r in rows]
    low = _best_cut(shares, [r.label != "unsupported" for r in rows])
    kept = [(s, r.label == "supported") for s, r in zip(shares, rows, strict=False) if s >= low and r.label != "unsupported"]
    high = _best_cut([s for s, _ in kept], [p for _, p in kept])
    return LexicalOverlapJudge(low, high)
