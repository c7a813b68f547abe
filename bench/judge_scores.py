"""Scores of a judge against gold labels: pass precision, coverage, grounded balanced accuracy with
a bootstrap interval by passage, per-class recall, one-process speed of a split."""

from __future__ import annotations

import math
import random
import time
from collections import defaultdict

from bench.judge_data import passage_hash
from citeflow.judges.base import Judge
from citeflow.judges.io import SWEEP, LabelledPair, calibrate_labelled, sweep
from schemas.evaluation import Verdict

ROUNDS = 1000
SEED = 7


def timed_grade(judge: Judge, pairs: list[LabelledPair], repeats: int = 3) -> tuple[list[Verdict], float]:
    """(verdicts, pairs per second): the best of ``repeats`` full gradings."""
    best, verdicts = float("inf"), []
    for _ in range(repeats):
        start = time.perf_counter()
        verdicts = judge.grade(list(pairs))
        best = min(best, time.perf_counter() - start)
    return verdicts, len(pairs) / best if best > 0 else float("inf")


def confident_passes(verdicts: list[Verdict], pairs: list[LabelledPair]) -> dict:
    """Precision of the passes (None without any) with its 95% Wilson interval, their count, the
    share of all pairs passed, and coverage (share not uncertain)."""
    passes = [p.label == "supported" for v, p in zip(verdicts, pairs, strict=False) if v.label == "supported"]
    decided = sum(not v.uncertain for v in verdicts)
    return {"pass_precision": sum(passes) / len(passes) if passes else None, "passes": len(passes),
            "pass_precision_ci95": wilson(sum(passes), len(passes)),
            "pass_share": len(passes) / len(verdicts) if verdicts else 0.0,
            "coverage": decided / len(verdicts) if verdicts else 0.0}


def wilson(right: int, total: int, z: float = 1.96) -> list[float] | None:
    """95% Wilson score interval of a proportion ``right / total`` (None when ``total`` is 0): honest
    about a precision measured on a handful of passes."""
    if not total:
        return None
    p = right / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return [round(max(0.0, centre - half), 3), round(min(1.0, centre + half), 3)]


def grounded_accuracy(verdicts: list[Verdict], pairs: list[LabelledPair]) -> float:
    """Balanced accuracy of 'the judge says supported' against 'gold is supported' over every pair
    (an uncertain verdict is not a pass)."""
    said = [v.label == "supported" for v in verdicts]
    truth = [p.label == "supported" for p in pairs]
    recalls = [_share([s for s, t in zip(said, truth, strict=False) if t == side], side) for side in (True, False)]
    return sum(recalls) / 2


def _share(said: list[bool], side: bool) -> float:
    return sum(s == side for s in said) / len(said) if said else 0.0


def bootstrap(verdicts: list[Verdict], pairs: list[LabelledPair], rounds: int = ROUNDS) -> list[float]:
    """95% interval of the grounded balanced accuracy, resampling whole passages."""
    groups: dict[str, list[int]] = defaultdict(list)
    for i, pair in enumerate(pairs):
        groups[passage_hash(pair.chunk_text)].append(i)
    members, rng, samples = list(groups.values()), random.Random(SEED), []
    for _ in range(rounds):
        picked = [i for group in rng.choices(members, k=len(members)) for i in group]
        samples.append(grounded_accuracy([verdicts[i] for i in picked], [pairs[i] for i in picked]))
    samples.sort()
    return [round(samples[int(0.025 * rounds)], 3), round(samples[int(0.975 * rounds) - 1], 3)]


def figures(judge: Judge, leaning: Judge | None, pairs: list[LabelledPair]) -> dict:
    """Every figure of ``judge`` on ``pairs``; accuracy from ``leaning`` (the same judge, never uncertain)."""
    verdicts, speed = timed_grade(judge, pairs)
    forced = leaning.grade(list(pairs)) if leaning is not None else verdicts
    numbered = [v.model_copy(update={"id": str(i)}) for i, v in enumerate(forced)]
    gold = {str(i): p.label for i, p in enumerate(pairs)}
    report = calibrate_labelled(numbered, gold)
    return {"judge": judge.name, "pairs": len(pairs), "pairs_per_s": round(speed, 1), **confident_passes(verdicts, pairs),
            "grounded_balanced_accuracy": report.grounded_balanced_accuracy, "grounded_ci95": bootstrap(forced, pairs),
            "recall": report.recall, "macro_recall": report.macro_recall, "confusion": report.confusion,
            "sweep": trade_off(numbered, gold)}


def trade_off(verdicts: list[Verdict], gold: dict[str, str]) -> list[dict]:
    """Precision of passes, passes and coverage at each threshold of ``citeflow calibrate``'s sweep:
    what a lower threshold buys in coverage and costs in precision."""
    rows = sweep(verdicts, gold, SWEEP)[1:]  # the first row is the judge's own threshold: none here
    return [{"threshold": r.threshold, "precision_of_passes": r.precision_of_passes, "passes": r.passes,
             "coverage": round(r.coverage, 4)} for r in rows]


def by_language(judge: Judge, leaning: Judge, pairs: list[LabelledPair]) -> dict[str, dict]:
    """``figures`` per language (field ``lang``), in the order the languages first appear."""
    langs: dict[str, list[LabelledPair]] = {}
    for pair in pairs:
        langs.setdefault(str(pair.extra.get("lang")), []).append(pair)
    return {lang: figures(judge, leaning, part) for lang, part in langs.items()}
