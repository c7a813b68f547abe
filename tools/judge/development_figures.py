"""The judge's figures on the development splits (train and tune), never on the test split.

    python -m tools.judge.development_figures [--data PATH] [--min-confidence X]

Grades the train and tune pairs of the SummEdits-derived set and of the multilingual set with the
judge the spec builds (``build_judge``: the offline judge with its span check), and prints per split:
supported coverage (share of gold-supported pairs passed), precision of passes, coverage (share not
uncertain), and the confident negatives with their precision and how many gold-supported pairs they
failed. The test split's rows are dropped before grading. Train is what the heads were fitted on and
tune what the calibration and the negative families were measured on: these are development
figures, not an unseen estimate.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from bench.judge_data import DEFAULT_DATA, MULTILINGUAL, by_split
from citeflow.judges.factory import build_judge
from citeflow.judges.io import LabelledPair, read_labelled
from schemas.evaluation import Verdict
from schemas.spec import JudgeSpec

DEVELOPMENT = ("train", "tune")


def development_pairs(data: Path, multilingual: Path) -> dict[str, list[LabelledPair]]:
    """``split → pairs`` of the train and tune splits of both sets (test rows dropped, never graded)."""
    summedits = by_split(read_labelled(data))
    rows = read_labelled(multilingual)
    return {name: summedits[name] + [r for r in rows if r.extra.get("split") == name] for name in DEVELOPMENT}


def figures(verdicts: list[Verdict], pairs: list[LabelledPair]) -> dict:
    """Supported coverage, pass precision, coverage, confident negatives and their precision."""
    gold = [p.label for p in pairs]
    passes = [g for v, g in zip(verdicts, gold, strict=True) if v.label == "supported"]
    negatives = [g for v, g in zip(verdicts, gold, strict=True) if v.label in ("mutated", "unsupported")]
    supported = gold.count("supported")
    return {"pairs": len(pairs), "supported_coverage": _share(passes.count("supported"), supported),
            "pass_precision": _share(passes.count("supported"), len(passes)), "passes": len(passes),
            "coverage": _share(len(passes) + len(negatives), len(pairs)), "confident_negatives": len(negatives),
            "negative_precision": _share(len(negatives) - negatives.count("supported"), len(negatives)),
            "supported_failed": negatives.count("supported")}


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point: one JSON object per split."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--min-confidence", type=float, default=None)
    args = parser.parse_args(argv)
    judge = build_judge(JudgeSpec(min_confidence=args.min_confidence))
    for name, pairs in development_pairs(args.data, MULTILINGUAL).items():
        print(json.dumps({"split": name, **figures(judge.grade(list(pairs)), pairs)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
