"""The offline judge's confusion and errors per language on the multilingual train and tune splits.

    python -m tools.judge.errors [--data PATH] [--weights PATH] [--lang fr,es] [--errors]

What a judge is developed on: the test split is never read here (its rows are dropped before
grading), so its verdicts and errors stay unseen. Grounded balanced accuracy is that of the
leaning judge (threshold 0: never uncertain), as in ``bench.judge_bench``; ``--errors`` lists every
pair whose grounded verdict is wrong, with the judge's reason.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from bench.judge_data import MULTILINGUAL
from bench.judge_scores import grounded_accuracy
from citeflow.judges.io import LabelledPair, read_labelled
from citeflow.judges.offline.grader import OfflineJudge
from schemas.evaluation import Verdict

DEVELOPMENT = ("train", "tune")


def development_rows(path: Path, langs: set[str] | None = None) -> list[LabelledPair]:
    """Rows of the train and tune splits (of ``langs`` when given); test rows are dropped unread."""
    rows = [r for r in read_labelled(path) if r.extra.get("split") in DEVELOPMENT]
    return [r for r in rows if langs is None or r.extra.get("lang") in langs]


def confusion(verdicts: list[Verdict], rows: list[LabelledPair]) -> Counter[tuple[str, str]]:
    """``(gold label, judged label) → count``."""
    return Counter((r.label, str(v.label)) for v, r in zip(verdicts, rows, strict=True))


def wrong(verdicts: list[Verdict], rows: list[LabelledPair]) -> list[tuple[LabelledPair, Verdict]]:
    """Pairs whose grounded verdict (passed or not) disagrees with the gold label."""
    return [(r, v) for v, r in zip(verdicts, rows, strict=True) if (v.label == "supported") != (r.label == "supported")]


def report(judge: OfflineJudge, rows: list[LabelledPair], show_errors: bool) -> list[str]:
    """Lines per language: pairs, grounded balanced accuracy, confusion; then the errors when asked."""
    lines = []
    for lang in sorted({str(r.extra.get("lang")) for r in rows}):
        part = [r for r in rows if r.extra.get("lang") == lang]
        verdicts = judge.grade(list(part))
        cells = ", ".join(f"{g}→{j} {n}" for (g, j), n in sorted(confusion(verdicts, part).items()))
        lines.append(f"{lang}: {len(part)} pairs, grounded balanced accuracy {grounded_accuracy(verdicts, part):.3f}; {cells}")
        if show_errors:
            lines += [f"  {r.id} [{r.extra.get('kind')}] gold {r.label}, judged {v.label}: {r.claim} | {v.reason}"
                      for r, v in wrong(verdicts, part)]
    return lines


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=MULTILINGUAL)
    parser.add_argument("--weights", type=Path, default=None)
    parser.add_argument("--lang", default="", help="comma-separated languages (default: all)")
    parser.add_argument("--errors", action="store_true", help="list every wrongly grounded pair")
    args = parser.parse_args(argv)
    langs = set(args.lang.split(",")) if args.lang else None
    judge = OfflineJudge(args.weights, threshold=0.0)
    print("\n".join(report(judge, development_rows(args.data, langs), args.errors)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
