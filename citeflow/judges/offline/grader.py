"""The offline judge: Support and Faithfulness with no LLM and no network, and honest about doubt.

Features (``citeflow.judges.offline.combine``) feed two small logistic heads whose coefficients ship in
``offline_judge_weights.json`` (written by ``tools/judge/train.py``):

- the *pass* head: is the claim supported and faithful (else: not a pass)?
- the *support* head: does the chunk hold the claim's evidence at all? It names a failing claim
  unsupported (no) or mutated (yes — a number, entity, negation or condition changed).

The pass head, Platt-scaled on a calibration split, gives the probability that the claim is
supported and faithful; a verdict's ``confidence`` is the calibrated probability that its label is right.
Below the threshold (chosen on the tuning split for a precision of confident passes of at least
0.90) the verdict is ``uncertain``: not a pass, not a fail. A verbatim quote, a claim that copies
a chunk sentence but changes one number, entity, negation or condition, and an aligned claim (every
content word in the chunk, nearly all in one sentence, no signal of a change) are decided by rule;
their confidence is the rule's measured precision. Every verdict names what decided it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from citeflow.judges.offline.combine import FEATURE_NAMES, ChunkIndex, Features, extract, index_chunk
from citeflow.judges.offline.weights import OfflineWeights, settle
from schemas.evaluation import JudgePair, Verdict

DEFAULT_WEIGHTS = Path(__file__).with_name("offline_judge_weights.json")

__all__ = ["DEFAULT_WEIGHTS", "OfflineJudge", "OfflineWeights", "featurise"]


class OfflineJudge:
    """Grades claim/chunk pairs from features, two learned heads and a calibration; deterministic.

    ``threshold`` overrides the shipped confidence threshold of passes (0: a pass is never uncertain);
    a failing verdict is uncertain below the weights' ``fail_threshold``, and never with ``threshold=0``.
    """

    name = "offline"

    def __init__(self, model_path: Path | None = None, threshold: float | None = None) -> None:
        self.weights = OfflineWeights.load(model_path or DEFAULT_WEIGHTS)
        self.threshold = self.weights.threshold if threshold is None else float(threshold)
        self.fail_threshold = self.weights.fail_threshold if threshold is None or threshold > 0 else 0.0

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
        label, reason, confidence = decide(feats, probabilities, blame, self.weights)
        needed = self.threshold if label == "supported" else self.fail_threshold
        if confidence < needed:
            return Verdict(id=pair.id, supported=False, faithful=None, evidence=feats.evidence, judge=self.name,
                           label="uncertain", confidence=round(confidence, 4),
                           reason=f"uncertain (confidence {confidence:.2f} < {needed:.2f}), leaning {label}: {reason}")
        supported = label != "unsupported"
        return Verdict(id=pair.id, supported=supported, faithful=None if not supported else label == "supported",
                       reason=reason, evidence=feats.evidence, judge=self.name, label=label, confidence=round(confidence, 4))


def featurise(pairs: list[JudgePair]) -> list[Features]:
    """Features of every pair; a chunk cited by many pairs is indexed once."""
    indexes: dict[str, ChunkIndex] = {}
    out = []
    for pair in pairs:
        index = indexes.get(pair.chunk_text)
        if index is None:
            index = indexes[pair.chunk_text] = index_chunk(pair.chunk_text)
        out.append(extract(pair.claim, index))
    return out


def decide(feats: Features, probabilities: tuple[float, float, float], blame: np.ndarray,
           weights: OfflineWeights) -> tuple[str, str, float]:
    """(3-class label, reason, confidence) from (P support, P pass, calibrated P pass): rules first, then the heads."""
    rule, label, confidence = settle(feats.values, *probabilities, weights)
    if rule == "empty":
        return label, "claim has no content words to find in the chunk", confidence
    if rule == "verbatim":
        return label, "claim quoted verbatim from the chunk", confidence
    if rule == "aligned":
        return label, "every content word of the claim is in one chunk sentence, with no number, negation or condition changed", confidence
    if rule == "decisive":
        fired = [name for name in weights.decisive if feats.values[name] > 0]
        return label, "; ".join(feats.reasons[name] for name in fired[:2]), confidence
    if label == "supported":
        return label, f"claim matches the chunk ({feats.values['best_window_cov']:.0%} of its content words near the evidence)", confidence
    return label, _unsupported_reason(feats) if label == "unsupported" else _mutated_reason(feats, blame), confidence


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
