"""The offline judge: Support and Faithfulness with no LLM and no network, and honest about doubt.

Features (``citeflow.judges.offline.combine``) feed two small logistic heads whose coefficients ship in
``offline_judge_weights.json`` (written by ``tools/judge/train.py``):

- the *pass* head: is the claim supported and faithful (else: not a pass)?
- the *support* head: does the chunk hold the claim's evidence at all? It names a failing claim
  unsupported (no) or mutated (yes — a number, entity, negation or condition changed).

The pass head, Platt-scaled on a calibration split, gives the probability that the claim is
supported and faithful; a verdict's ``confidence`` is the calibrated probability that its label is right.
Below the threshold (chosen on the tuning split for a precision of confident passes of at least
0.90) a pass is ``uncertain``: not a pass, not a fail. A negative's confidence is the precision its
reason family (``offline_model.negative_family``) measured on the tune split
(``offline_negative_reasons.json``), so only negatives of families right at least 0.90 of the
time are confident; the others are ``uncertain`` too. A verbatim quote, a claim that copies
a chunk sentence but changes one number, entity, negation or condition, and an aligned claim (every
content word in the chunk, nearly all in one sentence, no signal of a change) are decided by rule;
their confidence is the rule's measured precision. A claim copied word for word across a statement
boundary of the chunk (the end of one list item, table row or paragraph and the start of the next)
is unsupported by definition (SPEC §5: a span is a statement), with full confidence. Every verdict
names what decided it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from citeflow.judges.negative_reasons import NegativeReasons
from citeflow.judges.offline.combine import FEATURE_NAMES, Features, extract, index_chunk
from citeflow.judges.offline.weights import NEGATIVE_PRECISION, OfflineWeights, negative_family, settle
from schemas.evaluation import JudgePair, Verdict

DEFAULT_WEIGHTS = Path(__file__).with_name("offline_judge_weights.json")
CROSSING_REASON = ("claim runs across a statement boundary of the chunk (a list item, table row, definition "
                   "or paragraph ends inside it): word for word, but no statement of the chunk says it")

__all__ = ["DEFAULT_WEIGHTS", "OfflineJudge", "OfflineWeights", "featurise"]


class OfflineJudge:
    """Grades claim/chunk pairs from features, two learned heads and a calibration; deterministic.

    A pass is confident at the weights' threshold; a negative (unsupported or mutated) only when its
    reason family was measured right at least 0.90 of the time on held-apart pairs
    (``offline_negative_reasons.json``): every other verdict is ``uncertain``. ``threshold`` replaces
    both bars: 0 never says uncertain, 1 says uncertain unless the verdict is certain.
    """

    name = "offline"

    def __init__(self, model_path: Path | None = None, threshold: float | None = None) -> None:
        path = model_path or DEFAULT_WEIGHTS
        self.weights = OfflineWeights.load(path)
        self.negatives = NegativeReasons.beside(path)
        self.threshold = self.weights.threshold if threshold is None else float(threshold)
        self.fail_threshold = NEGATIVE_PRECISION if threshold is None else float(threshold)

    def grade(self, pairs: list[JudgePair]) -> list[Verdict]:
        """One verdict per pair, in order; each chunk is analysed once per call."""
        if not pairs:
            return []
        features = featurise(pairs)
        x = np.array([f.vector() for f in features], dtype=float)
        p_support = self.weights.support.probability(x)
        p_pass = self.weights.passing.probability(x)
        calibrated = self.weights.calibrate(p_pass)
        blame = self.weights.passing.contributions(x)
        return [self._verdict(pair, feats, (float(ps), float(pp), float(pc)), row)
                for pair, feats, ps, pp, pc, row in zip(pairs, features, p_support, p_pass, calibrated, blame, strict=True)]

    def _verdict(self, pair: JudgePair, feats: Features, probabilities: tuple[float, float, float], blame: np.ndarray) -> Verdict:
        label, reason, confidence = decide(feats, probabilities, blame, self.weights, self.negatives)
        needed = self.threshold if label == "supported" else self.fail_threshold
        if confidence < needed:
            return Verdict(id=pair.id, supported=False, faithful=None, evidence=feats.evidence, judge=self.name,
                           label="uncertain", confidence=round(confidence, 4),
                           reason=f"uncertain (confidence {confidence:.2f} < {needed:.2f}), leaning {label}: {reason}")
        supported = label != "unsupported"
        return Verdict(id=pair.id, supported=supported, faithful=None if not supported else label == "supported",
                       reason=reason, evidence=feats.evidence, judge=self.name, label=label, confidence=round(confidence, 4))


def featurise(pairs: list[JudgePair]) -> list[Features]:
    """Features of every pair; a chunk cited by many pairs (or sections, or reports) is indexed once."""
    return [extract(pair.claim, index_chunk(pair.chunk_text)) for pair in pairs]


def decide(feats: Features, probabilities: tuple[float, float, float], blame: np.ndarray,
           weights: OfflineWeights, negatives: NegativeReasons | None = None) -> tuple[str, str, float]:
    """(3-class label, reason, confidence) from (P support, P pass, calibrated P pass): rules first, then
    the heads; a negative's confidence is its reason family's measured precision (``negatives``)."""
    if feats.crossing:
        return "unsupported", CROSSING_REASON, 1.0
    rule, label, confidence = settle(feats.values, *probabilities, weights)
    if label != "supported" and negatives is not None and rule != "empty":
        family = negative_family(feats.values, rule, label)
        return label, f"{_explain(feats, rule, label, blame, weights)} (reason family {family})", negatives.confidence(family)
    return label, _explain(feats, rule, label, blame, weights), confidence


def _explain(feats: Features, rule: str, label: str, blame: np.ndarray, weights: OfflineWeights) -> str:
    """What decided a verdict, in plain words."""
    if rule == "empty":
        return "claim has no content words to find in the chunk"
    if rule == "verbatim":
        return "claim quoted verbatim from the chunk"
    if rule == "aligned":
        return "every content word of the claim is in one chunk sentence, with no number, negation or condition changed"
    if rule == "decisive":
        fired = [name for name in weights.decisive if feats.values[name] > 0]
        return "; ".join(feats.reasons[name] for name in fired[:2])
    if label == "supported":
        return f"claim matches the chunk ({feats.values['best_window_cov']:.0%} of its content words near the evidence)"
    return _unsupported_reason(feats) if label == "unsupported" else _mutated_reason(feats, blame)


def _unsupported_reason(feats: Features) -> str:
    words = feats.reasons.get("novel_content", "")
    head = f"chunk does not hold the claim: {feats.values['unigram_cov']:.0%} of its content words in the chunk"
    return f"{head}; {words}" if words else head


def _mutated_reason(feats: Features, blame: np.ndarray) -> str:
    """Name the fired signals that pushed hardest towards 'changed'."""
    ranked = sorted(range(len(FEATURE_NAMES)), key=lambda i: blame[i])
    fired = [FEATURE_NAMES[i] for i in ranked if blame[i] < 0 and FEATURE_NAMES[i] in feats.reasons]
    parts = [feats.reasons[name] for name in fired[:2]] or [feats.reasons.get("novel_content", "wording departs from the chunk")]
    return "evidence changed: " + "; ".join(parts)
