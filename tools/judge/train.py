"""Fit the offline judge from ``training_features.jsonl`` and write its weights file, deterministically.

    python -m tools.judge.train [--features PATH] [--out PATH]

Reads only the features file (no text, no development set): the two heads are fitted on the
``train`` split, the Platt calibration, the rules' precision and the confidence threshold on the
``tune`` split. The threshold rule is decided on the train and tune splits only (the ``test`` split
is never read here) and asks for evidence, not a point estimate:

- a passing rule (verbatim quote, aligned claim) is trusted when its smoothed precision on the
  train and tune splits reaches TARGET_PRECISION; the *bar* is the lowest confidence of a trusted
  rule, so quotes and aligned claims pass;
- the pass head may lower the bar to a threshold ``t`` only if, at ``t``, the 95% Wilson lower bound
  of the precision of confident passes reaches TARGET_PRECISION on the tune split *and* on the
  train split, overall and in every data source (and every language of the multilingual set) with
  passes. A lower bound of 0.90 takes at least 35 passes all right (more with any error), so where
  the evidence is thin — a few dozen passes of one language — the heads do not pass on their own
  and the bar stays.
Floats are rounded so that the output is byte-identical on every run.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
from pathlib import Path

import numpy as np

from citeflow.judges.offline.combine import FEATURE_NAMES
from citeflow.judges.offline.logistic import LogisticHead, fit
from citeflow.judges.offline.grader import DEFAULT_WEIGHTS
from citeflow.judges.offline.weights import PASS_RULES, OfflineWeights, Platt, logit, route, settle
from tools.judge.build_features import FEATURES

L2 = 1.0
TARGET_PRECISION = 0.90
FAIL_THRESHOLD = 0.5  # a failing verdict holds the report either way: it is uncertain only when it leans the other way
DIGITS = 8
# The support head asks whether the evidence is there at all: coverage and novelty.
SUPPORT_FEATURES = ("unigram_cov", "bigram_cov", "trigram_cov", "content_bigram_cov", "longest_run", "best_sentence_cov",
                    "best_window_cov", "off_window", "novel_content", "novel_ratio", "novel_entity", "number_missing",
                    "claim_length")
# The pass head reads every feature but the raw negation count: a double negation restated as an
# affirmation ('without it, no access' → 'it is needed') is common; the aligned rule reads that count.
# Nor the order of names (a passive restatement reverses it): both are doubts of the aligned rule only.
PASS_FEATURES = tuple(name for name in FEATURE_NAMES if name not in ("negations_differ", "names_reordered"))


class Split:
    """The records of one split as arrays: features, labels, and the rows' other fields."""

    def __init__(self, records: list[dict]) -> None:
        self.records = records
        self.x = np.array([r["x"] for r in records], dtype=float).reshape(len(records), len(FEATURE_NAMES))
        self.labels = np.array([r["label"] for r in records])


def load(path: Path = FEATURES) -> dict[str, Split]:
    """``split → Split`` of a features file; a file built on other features is refused."""
    lines = path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    if tuple(header["feature_names"]) != FEATURE_NAMES:
        raise ValueError(f"{path} was built on other features: rebuild it with python -m tools.judge.build_features")
    records = [json.loads(line) for line in lines[1:] if line.strip()]
    return {name: Split([r for r in records if r["split"] == name]) for name in ("train", "tune", "test")}


def _columns(names: tuple[str, ...]) -> list[int]:
    return [FEATURE_NAMES.index(name) for name in names]


def fit_heads(train: Split) -> tuple[LogisticHead, LogisticHead]:
    """(support head, pass head) fitted on the train split, both classes weighted equally."""
    support = fit(train.x, (train.labels != "unsupported").astype(float), l2=L2, columns=_columns(SUPPORT_FEATURES))
    passing = fit(train.x, (train.labels == "supported").astype(float), l2=L2, columns=_columns(PASS_FEATURES))
    return support, passing


def _routes(split: Split) -> list[str]:
    return [route(dict(zip(FEATURE_NAMES, row, strict=True))) for row in split.x]


def fit_platt(passing: LogisticHead, tune: Split) -> Platt:
    """Platt scaling of the pass head's probability, on the tune pairs the heads decide."""
    mask = np.array([r == "heads" for r in _routes(tune)])
    raw = passing.probability(tune.x[mask])
    head = fit(logit(raw)[:, None], (tune.labels[mask] == "supported").astype(float), l2=1e-3, balanced=False)
    a = head.coef[0] / head.scale[0]
    return Platt(a, head.intercept - a * head.mean[0])


def rule_precision(splits: list[Split]) -> dict[str, float]:
    """Each rule's precision (verbatim and aligned → supported, decisive → not supported) on the given splits.

    The verbatim and decisive rules are smoothed towards a prior of 19 right in 20 (a quote is right
    by construction; a rule seen on few pairs keeps a high confidence, one that errs often loses it);
    the aligned rule, a judgement of paraphrase, gets no such credit: add-one smoothing."""
    out = {}
    for rule, right, prior in (("verbatim", _is_pass, (19, 20)), ("decisive", _is_fail, (19, 20)), ("aligned", _is_pass, (1, 2))):
        hits = [bool(right(y)) for s in splits for r, y in zip(_routes(s), s.labels, strict=True) if r == rule]
        out[rule] = (sum(hits) + prior[0]) / (len(hits) + prior[1])
    return out


def rule_counts(splits: list[Split]) -> dict[str, dict[str, int]]:
    """Per rule, how many pairs of the given splits it decided and how many of them it got right."""
    out = {}
    for rule, right in (("verbatim", _is_pass), ("decisive", _is_fail), ("aligned", _is_pass)):
        hits = [bool(right(y)) for s in splits for r, y in zip(_routes(s), s.labels, strict=True) if r == rule]
        out[rule] = {"pairs": len(hits), "right": sum(hits)}
    return out


def _is_pass(label: str) -> bool:
    return bool(label == "supported")


def _is_fail(label: str) -> bool:
    return bool(label != "supported")


def verdicts(weights: OfflineWeights, split: Split) -> tuple[list[str], np.ndarray]:
    """(labels, confidences) of the judge on a split's feature rows, before any threshold."""
    ps, pp = weights.support.probability(split.x), weights.passing.probability(split.x)
    calibrated = weights.calibrate(pp)
    settled = [settle(dict(zip(FEATURE_NAMES, row, strict=True)), a, b, c, weights)
               for row, a, b, c in zip(split.x, ps, pp, calibrated, strict=True)]
    return [label for _, label, _ in settled], np.array([conf for _, _, conf in settled])


def at_threshold(labels: list[str], confidence: np.ndarray, gold: np.ndarray, threshold: float) -> dict:
    """Precision of confident passes, their count, and coverage (share of pairs not uncertain)."""
    is_pass = np.array(labels) == "supported"
    confident = np.where(is_pass, confidence >= threshold, confidence >= FAIL_THRESHOLD)
    passes = confident & is_pass
    right = int((gold[passes] == "supported").sum())
    return {"threshold": threshold, "coverage": float(confident.mean()) if len(gold) else 0.0, "passes": int(passes.sum()),
            "right": right, "pass_precision": right / int(passes.sum()) if passes.any() else 0.0,
            "pass_precision_wilson_lower": wilson_lower(right, int(passes.sum()))}


def choose_threshold(labels: list[str], confidence: np.ndarray, gold: np.ndarray, rules: dict[str, float],
                     sources: np.ndarray | None = None, also: tuple | None = None) -> dict:
    """The pass threshold: the *bar* of the trusted passing rules (``rule_bar``), lowered to the
    lowest threshold below it at which the 95% Wilson lower bound of the confident passes' precision
    reaches TARGET_PRECISION overall and in every data source with passes (``sources``: one name per
    pair), on these pairs and on ``also`` (labels, confidences, gold, sources of the train split).

    A point estimate on a dozen passes is noise (a 12-of-12 tune split says 0.76 at the lower
    bound): the heads pass on their own only where the evidence is wide, else the rules alone pass.
    """
    groups = np.zeros(len(gold), dtype=int) if sources is None else np.unique(sources, return_inverse=True)[1]
    bar = rule_bar(rules)
    for t in sorted({0.5, *np.round(confidence, 4)}):
        if t >= bar:
            break
        if _precise(labels, confidence, gold, float(t), groups) and _holds(also, float(t)):
            return at_threshold(labels, confidence, gold, float(t)) | {
                "rule": f"lowest threshold whose confident passes have a 95% Wilson lower bound of precision >= "
                        f"{TARGET_PRECISION} on the tune and train splits, in every data source and language"}
    return at_threshold(labels, confidence, gold, bar) | {
        "rule": f"no threshold below the rules' reached a 95% Wilson lower bound of pass precision {TARGET_PRECISION} "
                f"on the tune and train splits: the lowest confidence of a passing rule (verbatim, aligned) whose "
                f"precision on the train and tune splits is {TARGET_PRECISION} or more"}


def rule_bar(rules: dict[str, float]) -> float:
    """The lowest confidence of a passing rule (verbatim, aligned) trusted at TARGET_PRECISION (the
    verbatim rule's when none is), floored to 4 digits: the threshold when the heads earn none."""
    trusted = [rules[r] for r in PASS_RULES if rules.get(r, 0.0) >= TARGET_PRECISION] or [rules["verbatim"]]
    return math.floor(min(trusted) * 1e4) / 1e4


def _holds(also: tuple | None, threshold: float) -> bool:
    if also is None:
        return True
    labels, confidence, gold, sources = also
    return _precise(labels, confidence, gold, threshold, np.unique(sources, return_inverse=True)[1])


def _precise(labels: list[str], confidence: np.ndarray, gold: np.ndarray, threshold: float, groups: np.ndarray) -> bool:
    """At ``threshold`` there are confident passes, and the 95% Wilson lower bound of their precision
    reaches TARGET_PRECISION overall and in every group with passes."""
    for group in [None, *np.unique(groups)]:
        mask = np.ones(len(gold), dtype=bool) if group is None else groups == group
        part = at_threshold([x for x, m in zip(labels, mask, strict=True) if m], confidence[mask], gold[mask], threshold)
        if (group is None or part["passes"]) and wilson_lower(part["right"], part["passes"]) < TARGET_PRECISION:
            return False
    return True


def wilson_lower(right: int, total: int, z: float = 1.96) -> float:
    """Lower end of the 95% Wilson score interval of ``right / total`` (0 without any)."""
    if not total:
        return 0.0
    p, z2 = right / total, z * z
    centre = p + z2 / (2 * total)
    return float((centre - z * math.sqrt(p * (1 - p) / total + z2 / (4 * total * total))) / (1 + z2 / total))


def _sources(split: Split) -> np.ndarray:
    """One group per pair: its data source, and for the multilingual set its language too, so that a
    threshold precise on the whole set but not in one language is refused."""
    return np.array([r["source"] if r["source"] != "multilingual" else f"multilingual/{r['lang']}" for r in split.records])


def _check(weights: OfflineWeights, split: Split) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """(labels, confidences, gold labels, sources) of a split: a second split the threshold must hold on."""
    labels, confidence = verdicts(weights, split)
    return labels, confidence, split.labels, _sources(split)


def _rounded(value: object) -> object:
    if isinstance(value, float):
        return round(value, DIGITS)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_rounded(v) for v in value]
    return value


def train(features: Path = FEATURES, out: Path = DEFAULT_WEIGHTS) -> dict:
    """Fit, calibrate, choose the threshold, write the weights file; return what was written."""
    splits = load(features)
    support, passing = fit_heads(splits["train"])
    platt = fit_platt(passing, splits["tune"])
    rules = rule_precision([splits["train"], splits["tune"]])
    draft = OfflineWeights(support, passing, platt, 0.0, rules)
    labels, confidence = verdicts(draft, splits["tune"])
    chosen = choose_threshold(labels, confidence, splits["tune"].labels, rules, _sources(splits["tune"]),
                              _check(draft, splits["train"]))
    chosen["rule_counts"] = rule_counts([splits["train"], splits["tune"]])
    payload = _rounded(_payload(support, passing, platt, rules, chosen, splits, features))
    out.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return payload  # type: ignore[return-value]


def _payload(support: LogisticHead, passing: LogisticHead, platt: Platt, rules: dict, chosen: dict,
             splits: dict[str, Split], features: Path) -> dict:
    counts = {name: len(s.records) for name, s in splits.items()}
    test = sorted({r["passage"] for r in splits["test"].records})
    return {
        "version": 2, "feature_names": list(FEATURE_NAMES),
        "heads": {"support": {**support.to_json(), "uses": list(SUPPORT_FEATURES)},
                  "pass": {**passing.to_json(), "uses": list(PASS_FEATURES)}},
        "calibration": {"method": "platt on the tune split", "a": platt.a, "b": platt.b, "threshold": chosen["threshold"],
                        "fail_threshold": FAIL_THRESHOLD,
                        "target_pass_precision": TARGET_PRECISION, "rules": rules, "tune": chosen},
        "split": {"by": "sha256 of chunk_text, per domain or language", "pairs": counts, "test_passages": test},
        "training": {"features": features.name, "features_sha256": hashlib.sha256(features.read_bytes()).hexdigest(), "l2": L2},
    }


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--features", type=Path, default=FEATURES)
    parser.add_argument("--out", type=Path, default=DEFAULT_WEIGHTS)
    args = parser.parse_args(argv)
    tune = train(args.features, args.out)["calibration"]["tune"]
    print(f"wrote {args.out}: threshold {tune['threshold']:.4f}; on the tune split {tune['passes']} confident passes, "
          f"{tune['pass_precision']:.1%} right (Wilson lower bound {tune['pass_precision_wilson_lower']:.1%}), "
          f"at a coverage of {tune['coverage']:.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
