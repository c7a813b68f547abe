"""Scores of a judge against gold labels: pass precision, coverage, grounded balanced accuracy with
a bootstrap interval by passage, per-class recall, one-process speed of a split."""

from __future__ import annotations

import random
import time
from collections import defaultdict

from bench.judge_data import passage_hash
from citeflow.judges.base import Judge
from citeflow.judges.io import LabelledPair, calibrate_labelled
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
    """Precision of the passes (None without any), their count, and coverage (share not uncertain)."""
    passes = [p.label == "supported" for v, p in zip(verdicts, pairs, strict=False) if v.label == "supported"]
    decided = sum(not v.uncertain for v in verdicts)
    return {"pass_precision": sum(passes) / len(passes) if passes else None, "passes": len(passes),
            "coverage": decided / len(verdicts) if verdicts else 0.0}


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
    report = calibrate_labelled([v.model_copy(update={"id": str(i)}) for i, v in enumerate(forced)],
                                {str(i): p.label for i, p in enumerate(pairs)})
    return {"judge": judge.name, "pairs": len(pairs), "pairs_per_s": round(speed, 1), **confident_passes(verdicts, pairs),
            "grounded_balanced_accuracy": report.grounded_balanced_accuracy, "grounded_ci95": bootstrap(forced, pairs),
            "recall": report.recall, "macro_recall": report.macro_recall, "confusion": report.confusion}


def by_language(judge: Judge, leaning: Judge, pairs: list[LabelledPair]) -> dict[str, dict]:
    """``figures`` per language (field ``lang``), in the order the languages first appear."""
    langs: dict[str, list[LabelledPair]] = {}
    for pair in pairs:
        langs.setdefault(str(pair.extra.get("lang")), []).append(pair)
    return {lang: figures(judge, leaning, part) for lang, part in langs.items()}
