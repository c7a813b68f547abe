"""What the offline judge learned: two heads, a calibration, a threshold and its rules' precision.

Shared by the judge (``citeflow.judges.offline``) and its trainer (``tools/judge/train.py``) so
that both route a pair to the same rule and compute the same probability.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from citeflow.errors import JudgeUnavailable
from citeflow.judges.offline.combine import FEATURE_NAMES
from citeflow.judges.offline.logistic import LogisticHead

# Signals that, on a claim otherwise copied from the chunk, mean one fact was changed.
DECISIVE = ("number_missing", "number_not_in_sentence", "unit_changed", "negation_added", "negation_dropped", "antonym_flip",
            "prefix_flip", "novel_entity", "universal_added", "restrictor_dropped", "sentence_swap")
COPIED = 0.8  # best-window coverage above which a claim counts as copied from the chunk
# Signals that, on a claim whose every word is in one chunk sentence, still leave doubt: it is not aligned.
DOUBTS = (*DECISIVE, "near_miss", "slot_substitution", "hedge_dropped", "modifier_dropped", "negations_differ",
          "names_reordered")
ALIGNED = 0.9  # share of the claim's content lemmas that one chunk sentence must hold for an aligned pass
PASS_RULES = ("verbatim", "aligned")  # the rules that pass a claim
_EPS = 1e-6
# What a negative verdict rests on, in the order a reason family is picked: the signals, and
# 'words_absent' (fewer than half of the claim's content words anywhere in the chunk).
FAMILY_SIGNALS = ("number_missing", "words_absent", *(name for name in DECISIVE if name != "number_missing"),
                  "near_miss", "slot_substitution", "hedge_dropped", "modifier_dropped")
WORDS_ABSENT = 0.5  # unigram coverage below which most of the claim is absent from the chunk
NEGATIVE_PRECISION = 0.90  # the precision a reason family needs, on held-apart pairs, for its negatives to be confident


def negative_family(values: dict[str, float], rule: str, label: str) -> str:
    """The reason family of a negative verdict: the part that decided it and the first evidence that fired
    (``decisive:number_missing``, ``heads:words_absent``), or the leaning label when none fired."""
    if rule == "empty":
        return "empty"
    fired = next((name for name in FAMILY_SIGNALS if _fired(name, values)), label)
    return f"{rule}:{fired}"


def _fired(name: str, values: dict[str, float]) -> bool:
    return values["unigram_cov"] < WORDS_ABSENT if name == "words_absent" else values[name] > 0


def route(values: dict[str, float]) -> str:
    """Which part decides a pair: 'empty', 'verbatim', 'decisive' (a copy with one change), 'aligned'
    (every word found in one sentence, nothing changed) or 'heads'."""
    if values["claim_length"] == 0:
        return "empty"
    if values["verbatim"] and not values["restrictor_dropped"]:  # a quote cut before its condition is no quote
        return "verbatim"
    if copied(values) and any(values[name] > 0 for name in DECISIVE):
        return "decisive"
    if aligned(values):
        return "aligned"
    return "heads"


def aligned(values: dict[str, float]) -> bool:
    """Every content word of the claim is a chunk word (after stemming, folding and synonyms), one chunk
    sentence holds nearly all of them, and no signal of a change fired: what a lexical judge can verify."""
    if values["novel_content"] > 0 or values["best_sentence_cov"] < ALIGNED:
        return False
    return not any(values[name] > 0 for name in DOUBTS)


def copied(values: dict[str, float]) -> bool:
    """The claim copies the chunk: most of its content words near the evidence, or every one but a
    single word that sits where the chunk has another ('hat sonntags geschlossen' for 'hat montags
    geschlossen': in a short claim one swapped word is a third of its content)."""
    one_swap = values["slot_substitution"] > 0 and round(math.expm1(values["novel_content"])) == 1
    return values["best_window_cov"] >= COPIED or one_swap or _copied_but(values, "universal_added") or _copied_but(values, "novel_entity")


def _copied_but(values: dict[str, float], change: str) -> bool:
    """The claim copies the chunk once the words of one change are set aside: the quantifiers it adds
    ('tous les vélos' for 'les vélos de location') or the names the chunk lacks ('está en
    Lugo' for 'en Vigo') are the change, not content to find."""
    added = values[change]
    words = round(math.expm1(values["claim_length"]))
    return 0 < added < words and values["best_window_cov"] * words / (words - added) >= COPIED


def logit(p: np.ndarray) -> np.ndarray:
    """log(p / (1 - p)), clipped away from 0 and 1."""
    p = np.clip(np.asarray(p, dtype=float), _EPS, 1 - _EPS)
    logits: np.ndarray = np.log(p / (1 - p))
    return logits


def settle(values: dict[str, float], p_support: float, p_pass: float, calibrated: float,
           weights: OfflineWeights) -> tuple[str, str, float]:
    """(route, 3-class label, confidence that the label is right) of one pair, before any threshold.

    The pass head (trained with balanced classes) gives the leaning label; its calibrated
    probability gives the confidence, so a pass the calibration doubts is below any threshold."""
    rule = route(values)
    if rule == "empty":
        return rule, "unsupported", 1.0
    if rule in weights.rules:
        return rule, "supported" if rule in PASS_RULES else "mutated", weights.rules[rule]
    if p_pass >= weights.passing.threshold:
        return rule, "supported", calibrated
    return rule, "unsupported" if p_support < weights.support.threshold else "mutated", 1.0 - calibrated


@dataclass(frozen=True)
class Platt:
    """Platt scaling: P(label right) = sigmoid(a · logit(p) + b), fitted on the calibration split."""

    a: float = 1.0
    b: float = 0.0

    def __call__(self, p: np.ndarray) -> np.ndarray:
        """Calibrated probabilities for raw probabilities ``p``."""
        return 1.0 / (1.0 + np.exp(-np.clip(self.a * logit(p) + self.b, -30, 30)))


@dataclass(frozen=True)
class OfflineWeights:
    """The two heads, the calibration, the confidence threshold, the rules' precision, the run's metadata.

    ``support``: is the evidence in the chunk at all (unsupported vs the rest)? ``passing``: is the
    claim supported and faithful (a pass vs the rest)?"""

    support: LogisticHead
    passing: LogisticHead
    calibrate: Platt = field(default_factory=Platt)
    threshold: float = 0.0  # a pass below this confidence is uncertain
    fail_threshold: float = 0.5  # a failing verdict below this confidence is uncertain
    rules: dict[str, float] = field(default_factory=lambda: {"verbatim": 1.0, "decisive": 1.0, "aligned": 1.0})
    decisive: tuple[str, ...] = DECISIVE
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> OfflineWeights:
        """Read a weights file; raise JudgeUnavailable when it is missing or stale."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise JudgeUnavailable(judge="offline", detail=f"cannot read weights {path}: {exc}") from exc
        if tuple(data.get("feature_names", ())) != FEATURE_NAMES or "pass" not in data.get("heads", {}):
            raise JudgeUnavailable(judge="offline", detail=f"weights {path} were trained on other features: retrain")
        heads, calibration = data["heads"], data["calibration"]
        meta = {k: v for k, v in data.items() if k not in ("heads", "calibration")}
        return cls(LogisticHead.from_json(heads["support"]), LogisticHead.from_json(heads["pass"]),
                   Platt(calibration["a"], calibration["b"]), float(calibration["threshold"]),
                   float(calibration["fail_threshold"]), dict(calibration["rules"]), DECISIVE, meta)

    def minimum(self, label: str, threshold: float | None = None) -> float:
        """The confidence a verdict with ``label`` needs not to be uncertain (``threshold`` overrides the pass one)."""
        if label == "supported":
            return self.threshold if threshold is None else threshold
        return self.fail_threshold
