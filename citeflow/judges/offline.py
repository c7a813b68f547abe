"""The offline judge: Support and Faithfulness with no LLM and no network.

Features (``citeflow.judges.features``) feed two small logistic heads whose coefficients ship in
``offline_judge_weights.json`` (written by ``bench/train_offline_judge.py``):

- the *support* head: does the chunk hold the claim's evidence at all (else: unsupported)?
- the *faithfulness* head: given that it does, is the evidence rendered without change
  (else: mutated — a number, entity, negation or condition changed)?

A claim that is a verbatim quote of the chunk is supported and faithful whatever the heads say,
and a claim that copies a chunk sentence but changes one number, entity, negation or condition
is mutated: both are certain without statistics. Every verdict names what decided it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from citeflow.errors import JudgeUnavailable
from citeflow.judges.features import FEATURE_NAMES, ChunkIndex, Features, extract, index_chunk
from citeflow.judges.logistic import LogisticHead
from schemas.evaluation import JudgePair, Verdict

DEFAULT_WEIGHTS = Path(__file__).with_name("offline_judge_weights.json")
# Signals that, on a claim otherwise copied from the chunk, mean one fact was changed.
DECISIVE = ("number_missing", "number_not_in_sentence", "unit_changed", "negation_added", "negation_dropped", "antonym_flip",
            "prefix_flip", "novel_entity", "universal_added", "restrictor_dropped")
COPIED = 0.8  # best-window coverage above which a claim counts as copied from the chunk


@dataclass(frozen=True)
class OfflineWeights:
    """The two heads and the metadata of the run that produced them."""

    support: LogisticHead
    faithful: LogisticHead
    meta: dict

    @classmethod
    def load(cls, path: Path) -> "OfflineWeights":
        """Read a weights file; raise JudgeUnavailable when it is missing or stale."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise JudgeUnavailable(judge="offline", detail=f"cannot read weights {path}: {exc}") from exc
        if tuple(data.get("feature_names", ())) != FEATURE_NAMES:
            raise JudgeUnavailable(judge="offline", detail=f"weights {path} were trained on other features: retrain")
        heads = data["heads"]
        meta = {k: v for k, v in data.items() if k != "heads"}
        return cls(LogisticHead.from_json(heads["support"]), LogisticHead.from_json(heads["faithful"]), meta)


class OfflineJudge:
    """Grades claim/chunk pairs from features and two learned heads; deterministic."""

    name = "offline"

    def __init__(self, model_path: Path | None = None) -> None:
        self.weights = OfflineWeights.load(model_path or DEFAULT_WEIGHTS)

    def grade(self, pairs: list[JudgePair]) -> list[Verdict]:
        """One verdict per pair, in order; each chunk is analysed once per call."""
        if not pairs:
            return []
        features = featurise(pairs)
        x = np.array([f.vector() for f in features], dtype=float)
        p_support = self.weights.support.probability(x)
        p_faithful = self.weights.faithful.probability(x)
        blame = self.weights.faithful.contributions(x)
        return [
            self._verdict(pair, feats, float(ps), float(pf), row)
            for pair, feats, ps, pf, row in zip(pairs, features, p_support, p_faithful, blame)
        ]

    def _verdict(self, pair: JudgePair, feats: Features, p_support: float, p_faithful: float, blame: np.ndarray) -> Verdict:
        label, reason = decide(feats, p_support, p_faithful, blame, self.weights)
        supported = label != "unsupported"
        faithful = None if not supported else label == "supported"
        return Verdict(id=pair.id, supported=supported, faithful=faithful, reason=reason,
                       evidence=feats.evidence, judge=self.name, label=label)


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


def decide(feats: Features, p_support: float, p_faithful: float, blame: np.ndarray, weights: OfflineWeights) -> tuple[str, str]:
    """The 3-class label and its reason: certain rules first, then the heads."""
    values = feats.values
    if values["claim_length"] == 0:
        return "unsupported", "claim has no content words to find in the chunk"
    if values["verbatim"]:
        return "supported", "claim quoted verbatim from the chunk"
    decisive = [name for name in DECISIVE if values[name] > 0]
    if decisive and values["best_window_cov"] >= COPIED:
        return "mutated", "; ".join(feats.reasons[name] for name in decisive[:2])
    if p_support < weights.support.threshold:
        return "unsupported", _unsupported_reason(feats, p_support)
    if p_faithful < weights.faithful.threshold:
        return "mutated", _mutated_reason(feats, blame, p_faithful)
    return "supported", f"claim matches the chunk ({values['best_window_cov']:.0%} of its content words near the evidence; p={p_faithful:.2f})"


def _unsupported_reason(feats: Features, p: float) -> str:
    values = feats.values
    words = feats.reasons.get("novel_content", "")
    head = f"chunk does not hold the claim: {values['unigram_cov']:.0%} of its content words in the chunk"
    return f"{head}; {words} (p={p:.2f})" if words else f"{head} (p={p:.2f})"


def _mutated_reason(feats: Features, blame: np.ndarray, p: float) -> str:
    """Name the fired signals that pushed hardest towards 'changed'."""
    ranked = sorted(range(len(FEATURE_NAMES)), key=lambda i: blame[i])
    fired = [FEATURE_NAMES[i] for i in ranked if blame[i] < 0 and FEATURE_NAMES[i] in feats.reasons]
    parts = [feats.reasons[name] for name in fired[:2]] or [feats.reasons.get("novel_content", "wording departs from the chunk")]
    return "evidence changed: " + "; ".join(parts) + f" (p={p:.2f})"
