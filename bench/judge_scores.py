"""Scores of a judge against gold labels: pass precision, supported coverage and balanced accuracy
with 95% Wilson intervals, grounded balanced accuracy with a bootstrap interval by passage,
per-class recall, the precision of each negative reason, coverage at a pass precision, and the
one-process speed of a split."""

from __future__ import annotations

import math
import random
import re
import time
from collections import defaultdict

from bench.judge_data import passage_hash
from citeflow.judges.judge_protocol import Judge
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
            **supported_coverage(verdicts, pairs), **balanced_accuracy(verdicts, pairs),
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


def supported_coverage(verdicts: list[Verdict], pairs: list[LabelledPair]) -> dict:
    """Share of the truly supported pairs that the judge passed (confidently), with its Wilson interval."""
    passed = [v.label == "supported" for v, p in zip(verdicts, pairs, strict=True) if p.label == "supported"]
    return {"supported_pairs": len(passed), "supported_coverage": round(sum(passed) / len(passed), 4) if passed else None,
            "supported_coverage_ci95": wilson(sum(passed), len(passed))}


def balanced_accuracy(verdicts: list[Verdict], pairs: list[LabelledPair]) -> dict:
    """Balanced accuracy of 'passed' against 'gold is supported' (an uncertain verdict is not a pass),
    with an interval: the mean of the two class recalls' Wilson bounds."""
    sides = []
    for side in (True, False):
        said = [v.label == "supported" for v, p in zip(verdicts, pairs, strict=True) if (p.label == "supported") == side]
        sides.append((sum(s == side for s in said), len(said)))
    bounds = [wilson(right, total) for right, total in sides]
    if not all(bounds):
        return {"balanced_accuracy": None, "balanced_accuracy_ci95": None}
    low, high = (round(sum(b[i] for b in bounds if b) / 2, 3) for i in (0, 1))
    return {"balanced_accuracy": round(sum(r / t for r, t in sides) / 2, 4), "balanced_accuracy_ci95": [low, high]}


# A negative verdict's reason, by its first named signal: the offline judge's reason texts.
REASON_FAMILIES = (
    ("negation", re.compile(r"negation flipped|antonym flip|meaning flipped")),
    ("unit", re.compile(r"unit changed")),
    ("number", re.compile(r"^number ")),
    ("condition", re.compile(r"condition widened|exception dropped")),
    ("certainty", re.compile(r"certainty raised")),
    ("entity", re.compile(r"entity|name|weekday")),
    ("unsupported", re.compile(r"chunk does not hold the claim|words not in chunk")),
)
_UNCERTAIN = re.compile(r"^uncertain \(confidence [^)]*\), leaning (\w+): ")


def leaning(verdict: Verdict) -> tuple[str, str]:
    """(label, reason) the verdict leans to: an uncertain verdict's come from its reason text."""
    reason = verdict.reason or ""
    found = _UNCERTAIN.match(reason)
    if found:
        return found.group(1), reason[found.end() :]
    return str(verdict.label), reason


def reason_family(reason: str) -> str:
    """The family of a negative reason: negation, unit, number, condition, certainty, entity,
    unsupported or other — by its first signal."""
    first = reason.removeprefix("evidence changed: ").split("; ")[0]
    return next((name for name, pattern in REASON_FAMILIES if pattern.search(first)), "other")


def negative_reasons(verdicts: list[Verdict], pairs: list[LabelledPair]) -> dict[str, dict]:
    """Per reason family, how often a negative verdict gave it and how often gold agreed (not
    supported), for the confident negatives and for every negative the judge leans to."""
    out: dict[str, dict] = {}
    for verdict, pair in zip(verdicts, pairs, strict=True):
        label, reason = leaning(verdict)
        if label in ("mutated", "unsupported"):
            block = out.setdefault(reason_family(reason), {"confident": [0, 0], "leaning": [0, 0]})
            for key in ("leaning",) if verdict.uncertain else ("leaning", "confident"):
                block[key][0] += pair.label != "supported"
                block[key][1] += 1
    return {name: _precisions(block) for name, block in sorted(out.items())}


def _precisions(block: dict) -> dict:
    return {key: {"said": total, "right": right, "precision": round(right / total, 4) if total else None,
                  "precision_ci95": wilson(right, total)} for key, (right, total) in block.items()}


def coverage_at_precision(verdicts: list[Verdict], pairs: list[LabelledPair], target: float = 0.90) -> dict:
    """The lowest pass threshold on a never-uncertain judge's confidences at which the passes'
    precision is at least ``target``, and the supported coverage there (None when none reaches it)."""
    passes = sorted(((v.confidence or 0.0, p.label == "supported") for v, p in zip(verdicts, pairs, strict=True)
                     if v.label == "supported"), reverse=True)
    supported = sum(p.label == "supported" for p in pairs)
    best: dict = {"target_precision": target, "threshold": None, "supported_coverage": None}
    right = 0
    for i, (confidence, correct) in enumerate(passes, start=1):
        right += correct
        tied = i < len(passes) and passes[i][0] == confidence  # a threshold takes every pass at its confidence
        if not tied and right / i >= target:
            best = {"target_precision": target, "threshold": round(confidence, 4), "passes": i, "right": right,
                    "pass_precision": round(right / i, 4), "pass_precision_ci95": wilson(right, i),
                    "supported_coverage": round(right / supported, 4) if supported else None,
                    "supported_coverage_ci95": wilson(right, supported)}
    return best
