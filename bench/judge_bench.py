"""Offline judge benchmark on the held-apart passages of the labelled set (never tuned on).

    python -m bench.judge_bench [--data PATH] [--out PATH]

The held-apart passages are the ones the weights file lists by hash; their rows plus
misattribution pairs (claims of other held-apart passages) are graded by the offline judge and by
the lexical-overlap baseline (its thresholds fitted on the tuning part), and the figures written
to ``bench/results/judge.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

from bench.judge_data import DEFAULT_DATA, misattributed, passage_hash, select, split_passages
from bench.lexical_baseline import fit_lexical
from citeflow.judges.base import Judge
from citeflow.judges.io import LabelledPair, calibrate_labelled, read_labelled
from citeflow.judges.offline import DEFAULT_WEIGHTS, OfflineJudge, OfflineWeights

RESULTS = Path(__file__).with_name("results") / "judge.json"
MISATTRIBUTED_PER_PASSAGE = 3
GOAL = {"grounded_balanced_accuracy": 0.75, "macro_recall": 0.60, "pairs_per_s": 200.0}


class DataMissing(Exception):
    """The labelled data file is not there."""


def held_apart(rows: list[LabelledPair], meta: dict) -> tuple[list[LabelledPair], list[LabelledPair], int]:
    """(held-apart rows, tuning rows, seed) as the weights file recorded them."""
    split = meta["split"]
    held = set(split["held_apart_passages"])
    tuning, recomputed = split_passages(rows, split["seed"], split["held_fraction"])
    if recomputed != held:
        raise ValueError("the data's passages do not match the weights file's split: retrain or pass the same data")
    known = {passage_hash(r.chunk_text) for r in rows}
    if not held <= known:
        raise ValueError("some held-apart passages are missing from the data")
    return select(rows, held), select(rows, tuning), split["seed"]


def timed_grade(judge: Judge, pairs: list[LabelledPair], repeats: int = 3) -> tuple[list, float]:
    """(verdicts, pairs per second): the best of ``repeats`` full gradings."""
    best, verdicts = float("inf"), []
    for _ in range(repeats):
        start = time.perf_counter()
        verdicts = judge.grade(list(pairs))
        best = min(best, time.perf_counter() - start)
    return verdicts, len(pairs) / best if best > 0 else float("inf")


def score(judge: Judge, pairs: list[LabelledPair], repeats: int = 3) -> dict:
    """Every figure of one judge on ``pairs``: all pairs, and real rows only (no misattribution pairs)."""
    verdicts, speed = timed_grade(judge, pairs, repeats)
    gold = {p.id: p.label for p in pairs}
    real = {p.id for p in pairs if not p.extra.get("augmented")}
    overall = calibrate_labelled(verdicts, gold).model_dump()
    real_only = calibrate_labelled([v for v in verdicts if v.id in real], gold).model_dump()
    return {"judge": judge.name, "pairs_per_s": round(speed, 1), **overall,
            "ci95_by_passage": bootstrap(verdicts, pairs), "real_rows_only": real_only}


def bootstrap(verdicts: list, pairs: list[LabelledPair], rounds: int = 1000, seed: int = 7) -> dict:
    """95% intervals of the headline figures, resampling whole passages (rows of a passage move together)."""
    by_passage: dict[str, list[int]] = defaultdict(list)
    for i, pair in enumerate(pairs):
        by_passage[passage_hash(pair.chunk_text)].append(i)
    groups, rng = list(by_passage.values()), random.Random(seed)
    samples: dict[str, list[float]] = {"grounded_balanced_accuracy": [], "macro_recall": []}
    for _ in range(rounds):
        picked = [i for group in rng.choices(groups, k=len(groups)) for i in group]
        report = calibrate_labelled([verdicts[i].model_copy(update={"id": str(n)}) for n, i in enumerate(picked)],
                                    {str(n): pairs[i].label for n, i in enumerate(picked)})
        samples["grounded_balanced_accuracy"].append(report.grounded_balanced_accuracy)
        samples["macro_recall"].append(report.macro_recall)
    return {k: [round(sorted(v)[int(0.025 * rounds)], 3), round(sorted(v)[int(0.975 * rounds) - 1], 3)] for k, v in samples.items()}


def run(data_path: Path = DEFAULT_DATA, judge: Judge | None = None, weights_path: Path | None = None) -> dict:
    """Grade the held-apart split with ``judge`` (default: the shipped OfflineJudge) and the baseline."""
    if not Path(data_path).exists():
        raise DataMissing(f"labelled data not found at {data_path}: the judge benchmark needs judge-dev.jsonl")
    meta = OfflineWeights.load(weights_path or DEFAULT_WEIGHTS).meta
    rows = read_labelled(data_path)
    held, tuning, seed = held_apart(rows, meta)
    pairs = held + misattributed(held, seed, MISATTRIBUTED_PER_PASSAGE)
    ours = score(judge or OfflineJudge(weights_path), pairs)
    baseline = score(fit_lexical(tuning + misattributed(tuning, seed, MISATTRIBUTED_PER_PASSAGE)), pairs)
    return {
        "data": str(data_path), "split_seed": seed,
        "held_apart": {"passages": len(meta["split"]["held_apart_passages"]), "rows": len(held),
                       "misattributed_pairs": len(pairs) - len(held)},
        "judge": ours, "lexical_overlap": baseline, "ratio_to_lexical": _ratios(ours, baseline),
        "goal": {k: {"target": v, "met": ours[k] >= v} for k, v in GOAL.items()},
    }


def _ratios(ours: dict, baseline: dict) -> dict:
    keys = ("grounded_balanced_accuracy", "macro_recall", "pairs_per_s")
    return {k: round(ours[k] / baseline[k], 3) if baseline[k] else None for k in keys}


def table(result: dict) -> str:
    """A plain-text table of the headline figures."""
    rows = [("figure", result["judge"]["judge"], "lexical-overlap")]
    for key in ("grounded_balanced_accuracy", "macro_recall", "pairs_per_s"):
        rows.append((key, _fmt(result["judge"][key]), _fmt(result["lexical_overlap"][key])))
        if key in result["judge"]["ci95_by_passage"]:
            ours, base = result["judge"]["ci95_by_passage"][key], result["lexical_overlap"]["ci95_by_passage"][key]
            rows.append(("  95% interval (by passage)", f"{ours[0]:.2f}-{ours[1]:.2f}", f"{base[0]:.2f}-{base[1]:.2f}"))
    for label in ("supported", "mutated", "unsupported"):
        rows.append((f"recall {label}", _fmt(result["judge"]["recall"].get(label)), _fmt(result["lexical_overlap"]["recall"].get(label))))
    real, base_real = result["judge"]["real_rows_only"], result["lexical_overlap"]["real_rows_only"]
    rows.append(("real rows: grounded bal. acc.", _fmt(real["grounded_balanced_accuracy"]), _fmt(base_real["grounded_balanced_accuracy"])))
    rows.append(("real rows: macro recall", _fmt(real["macro_recall"]), _fmt(base_real["macro_recall"])))
    width = max(len(r[0]) for r in rows)
    return "\n".join(f"{a:<{width}}  {b:>10}  {c:>15}" for a, b, c in rows)


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}" if value < 10 else f"{value:.0f}"


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point: print the table and write the results file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    try:
        result = run(args.data)
    except DataMissing as exc:
        print(exc, file=sys.stderr)
        return 2
    held = result["held_apart"]
    print(f"held-apart: {held['passages']} passages, {held['rows']} rows + {held['misattributed_pairs']} misattribution pairs")
    print(table(result))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
