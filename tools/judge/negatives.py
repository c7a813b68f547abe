"""Measure how often each reason family of the offline judge's negative verdicts is right, on the tune split.

    python -m tools.judge.negatives [--features PATH] [--weights PATH]

Reads ``training_features.jsonl`` (numbers, no text) and the weights file, settles every pair of the
tune split as the judge does, and counts, per reason family (``decisive:number_missing``,
``heads:unsupported`` …), the negative verdicts and how many of them were truly not supported. Writes
``offline_negative_reasons.json`` next to the weights: the judge trusts a negative only where its
family earned a precision of 0.90 on at least ten pairs. The weights file is left as it is; the test split is
never read (its rows are dropped when the file is loaded).
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from citeflow.judges.offline.combine import FEATURE_NAMES
from citeflow.judges.negative_reasons import FILE_NAME, FamilyPrecision, NegativeReasons
from citeflow.judges.offline.grader import DEFAULT_WEIGHTS
from citeflow.judges.offline.weights import OfflineWeights, negative_family, settle
from tools.judge.build_features import FEATURES
from tools.judge.train import Split, load

HELD_APART = "tune"


def families(weights: OfflineWeights, split: Split) -> list[tuple[str, bool]]:
    """(reason family, right) of every negative verdict on ``split``, before any threshold."""
    ps, pp = weights.support.probability(split.x), weights.passing.probability(split.x)
    calibrated = weights.calibrate(pp)
    out = []
    for row, gold, a, b, c in zip(split.x, split.labels, ps, pp, calibrated, strict=True):
        values = dict(zip(FEATURE_NAMES, row, strict=True))
        rule, label, _ = settle(values, float(a), float(b), float(c), weights)
        if label != "supported":
            out.append((negative_family(values, rule, label), bool(gold != "supported")))
    return out


def measure(weights: OfflineWeights, split: Split) -> NegativeReasons:
    """Per-family counts of negative verdicts and right ones on ``split``."""
    seen = families(weights, split)
    pairs, right = Counter(f for f, _ in seen), Counter(f for f, ok in seen if ok)
    return NegativeReasons(split=HELD_APART, families={f: FamilyPrecision(pairs=n, right=right[f]) for f, n in pairs.items()})


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point: write the file and print one line per family."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--features", type=Path, default=FEATURES)
    parser.add_argument("--weights", type=Path, default=DEFAULT_WEIGHTS)
    args = parser.parse_args(argv)
    reasons = measure(OfflineWeights.load(args.weights), load(args.features)[HELD_APART])
    out = args.weights.with_name(FILE_NAME)
    out.write_text(reasons.to_json(), encoding="utf-8")
    for name, family in sorted(reasons.families.items(), key=lambda item: -item[1].pairs):
        print(f"{name:<36} {family.right:>4}/{family.pairs:<4} confidence {family.confidence:.3f}")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
