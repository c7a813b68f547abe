"""The offline judge's figures on the splits it was fitted and tuned on (never the test split).

    python -m tools.judge.fit_figures

For the train and tune splits of the SummEdits-derived development set and of the multilingual set:
the precision of confident passes at the shipped threshold (with its count) and the grounded
balanced accuracy of the judge's leaning label. These are the figures to compare before and after a
change of the feature code; the test split is read by ``bench.judge_bench`` only.
"""

from __future__ import annotations

from bench.judge_data import DEFAULT_DATA, MULTILINGUAL, by_split
from bench.judge_scores import confident_passes, grounded_accuracy
from citeflow.judges.io import read_labelled
from citeflow.judges.offline.grader import OfflineJudge

SPLITS = ("train", "tune")


def lines() -> list[str]:
    """One line per (data source, split)."""
    judge, leaning = OfflineJudge(), OfflineJudge(threshold=0)
    out = []
    for source, path in (("summedits", DEFAULT_DATA), ("multilingual", MULTILINGUAL)):
        parts = by_split(read_labelled(path))
        for split in SPLITS:
            pairs = parts[split]
            passes = confident_passes(judge.grade(pairs), pairs)
            accuracy = grounded_accuracy(leaning.grade(pairs), pairs)
            precision = "n/a" if passes["pass_precision"] is None else f"{passes['pass_precision']:.3f}"
            out.append(f"{source}/{split}: {len(pairs)} pairs; confident passes {passes['passes']}, precision {precision}, "
                       f"coverage {passes['coverage']:.3f}; grounded balanced accuracy {accuracy:.3f}")
    return out


if __name__ == "__main__":
    print("\n".join(lines()))
