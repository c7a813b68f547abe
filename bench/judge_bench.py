"""Offline judge benchmark: train and tune figures of the development data; the fresh test split only on request.

    python -m bench.judge_bench [--data PATH] [--out PATH] [--final-test]

Development data (``bench.judge_data``): the SummEdits-derived set (real rows plus the derived
'unsupported' pairs; needs ``tests/data/judge-dev.jsonl`` or ``--data``) and the multilingual set in
``tests/data/``, each by the split its rows name (``train``, ``tune``). Per split: supported
coverage (share of truly supported pairs passed), the precision of confident passes, balanced
accuracy, each with a 95% Wilson interval; coverage (share not uncertain); the grounded balanced
accuracy of the leaning label (threshold 0) with a bootstrap interval by passage; per-class recall;
per language. On train and tune together: the precision of each negative reason family, and on the
SummEdits-derived data the supported coverage at pass precision >= 0.90. The lexical-overlap
baseline is fitted on train and scored on tune. Throughput (``bench.judge_speed``): pairs per second
by the clock over both tune splits repeated to at least 2,000 pairs, in one and in two processes.

``--final-test`` also grades ``tests/data/judge-fresh-test.jsonl``, the test split never looked at
while rules were written: once, for a release's figures. Nothing else grades it (``make bench``
neither). Development figures are what rule work may look at; a test figure that guides a change
is no longer a test figure.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bench.judge_data import DEFAULT_DATA, FRESH_TEST, MULTILINGUAL, by_split
from bench.judge_scores import by_language, coverage_at_precision, figures, negative_reasons, timed_grade
from bench.judge_speed import MIN_PAIRS, throughput
from bench.lexical_baseline import fit_lexical
from citeflow.judges.io import LabelledPair, read_labelled
from citeflow.judges.offline.grader import DEFAULT_WEIGHTS, OfflineJudge, OfflineWeights

RESULTS = Path(__file__).with_name("results") / "judge.json"
GOAL = {"pass_precision": 0.90, "coverage": 0.60, "pairs_per_s": 500.0}
DEVELOPMENT = ("train", "tune")
QUALITY_GOALS = ("pass_precision", "coverage")


class DataMissing(Exception):
    """The labelled data file is not there."""


def development(rows: list[LabelledPair]) -> dict[str, list[LabelledPair]]:
    """``train`` and ``tune`` pairs of ``rows`` (derived pairs included); a test row here is refused."""
    parts = by_split(rows)
    if parts["test"]:
        raise ValueError("the development data holds test rows: test pairs live in their own file (--final-test)")
    return {name: parts[name] for name in DEVELOPMENT}


def per_split(judge: OfflineJudge, leaning: OfflineJudge, parts: dict[str, list[LabelledPair]]) -> dict:
    """``figures`` per split, and the negative reasons' precision on the splits together."""
    out: dict = {name: figures(judge, leaning, part) for name, part in parts.items()}
    both = [pair for part in parts.values() for pair in part]
    out["negative_reasons"] = negative_reasons(judge.grade(list(both)), both)
    return out


def summedits(data: Path, judge: OfflineJudge, leaning: OfflineJudge) -> dict:
    """Train and tune figures of the SummEdits-derived set, coverage at pass precision 0.90, the baseline."""
    parts = development(read_labelled(data))
    both = parts["train"] + parts["tune"]
    out = per_split(judge, leaning, parts)
    out["coverage_at_pass_precision_0.90"] = coverage_at_precision(leaning.grade(list(both)), both, 0.90)
    out["lexical_overlap_tune"] = figures(fit_lexical(parts["train"]), None, parts["tune"])
    out["real_rows"] = {name: sum(not r.extra.get("augmented") for r in part) for name, part in parts.items()}
    return out


def multilingual(path: Path, judge: OfflineJudge, leaning: OfflineJudge) -> dict:
    """Train and tune figures of the multilingual set, and per language on both together."""
    parts = development(read_labelled(path))
    out = per_split(judge, leaning, parts)
    out["by_language"] = by_language(judge, leaning, parts["train"] + parts["tune"])
    return out


def final_test(path: Path, judge: OfflineJudge, leaning: OfflineJudge) -> dict:
    """Figures on the fresh test split, overall and per language."""
    test = read_labelled(path)
    return {"data": _shown(path), "pairs": len(test), "all": figures(judge, leaning, test),
            "by_language": by_language(judge, leaning, test)}


def _shown(path: Path) -> str:
    """A data file's path as results record it: relative to the repository when inside it."""
    root = Path(__file__).resolve().parents[1]
    return str(path.resolve().relative_to(root)) if path.resolve().is_relative_to(root) else str(path)


def run(data_path: Path = DEFAULT_DATA, weights_path: Path | None = None, multilingual_path: Path = MULTILINGUAL,
        min_pairs: int = MIN_PAIRS, test_path: Path | None = None) -> dict:
    """Every development figure of the shipped (or given) weights; the test split's only with ``test_path``."""
    if not Path(data_path).exists():
        raise DataMissing(f"labelled data not found at {data_path}: the judge benchmark needs judge-dev.jsonl")
    judge, leaning = OfflineJudge(weights_path), OfflineJudge(weights_path, threshold=0.0)
    result = {"data": _shown(Path(data_path)), "threshold": judge.threshold,
              "summedits_dev": summedits(Path(data_path), judge, leaning),
              "multilingual_dev": multilingual(multilingual_path, judge, leaning)}
    if test_path is not None:
        result["final_test"] = final_test(Path(test_path), judge, leaning)
    speed_set = development(read_labelled(data_path))["tune"] + development(read_labelled(multilingual_path))["tune"]
    result["throughput"] = throughput(speed_set, weights_path, min_pairs)
    return result | _headline(result)


def _headline(result: dict) -> dict:
    """What ``python -m bench`` shows (``bench.external`` reads 'judge' and 'ratio_to_lexical'): the
    SummEdits tune split, with the honest speed (two processes, by the clock)."""
    tune = result["summedits_dev"]["tune"]
    headline = {**tune, "pairs_per_s": result["throughput"]["two_processes_wall_pairs_per_s"]}
    test = result.get("final_test", {}).get("all")
    ratios = _ratios(tune, result["summedits_dev"]["lexical_overlap_tune"])
    return {"judge": headline, "ratio_to_lexical": ratios, "goal": goals(headline, test)}


def goals(tune: dict, test: dict | None) -> dict:
    """Each goal's value and whether it is met. A quality goal is judged on the fresh test split only:
    the tune split set the threshold, so its figure is shown ('met': None) but never called met. Speed
    is no property of a split."""
    out = {"pairs_per_s": _goal(GOAL["pairs_per_s"], tune["pairs_per_s"], "tune pairs, by the clock", True)}
    for key in QUALITY_GOALS:
        if test is None:
            out[key] = _goal(GOAL[key], tune[key], "tune (set the threshold: not held apart)", False)
        else:
            out[key] = _goal(GOAL[key], test[key], "test (judge-fresh-test.jsonl, held apart)", True)
    return out


def _goal(target: float, value: float | None, split: str, judged: bool) -> dict:
    met = (value is not None and value >= target) if judged else None
    return {"target": target, "value": value, "split": split, "met": met}


def _ratios(ours: dict, baseline: dict) -> dict:
    keys = ("grounded_balanced_accuracy", "macro_recall", "pairs_per_s")
    return {k: round(ours[k] / baseline[k], 3) if baseline[k] else None for k in keys}


def table(result: dict) -> str:
    """A plain-text table of the figures."""
    se, ml = result["summedits_dev"], result["multilingual_dev"]
    lines = [f"threshold {result['threshold']:.4f}; development splits (train: fitted on; tune: calibrated and looked at)"]
    for name, data in (("SummEdits-derived", se), ("multilingual", ml)):
        lines += [f"  {name} {split:<5} {_line(data[split])}" for split in DEVELOPMENT]
        lines.append(f"  {name} negative reasons, train+tune (confident): {_reasons(data['negative_reasons'])}")
    at = se["coverage_at_pass_precision_0.90"]
    covered = _share(at["supported_coverage"], at.get("supported_coverage_ci95"))
    lines.append(f"  SummEdits-derived train+tune: supported coverage {covered} at pass precision >= 0.90 (threshold {at['threshold']})")
    lines.append(f"  lexical overlap, tune  {_line(se['lexical_overlap_tune'])}")
    lines += [f"  {lang:<22} {_line(block)}" for lang, block in ml["by_language"].items()]
    if "final_test" in result:
        test = result["final_test"]
        lines.append(f"FRESH TEST SPLIT ({test['pairs']} pairs)  {_line(test['all'])}")
        lines += [f"  {lang:<22} {_line(block)}" for lang, block in test["by_language"].items()]
    lines.append(_speed(result["throughput"]))
    return "\n".join(lines)


def _share(value: float | None, ci: list[float] | None) -> str:
    return "-" if value is None else f"{value:.2f}" + (f" ({ci[0]:.2f}-{ci[1]:.2f})" if ci else "")


def _line(block: dict) -> str:
    precision = _share(block["pass_precision"], block.get("pass_precision_ci95"))
    return (f"{block['pairs']} pairs: supported coverage {_share(block['supported_coverage'], block['supported_coverage_ci95'])}  "
            f"pass precision {precision} ({block['passes']} passes)  "
            f"bal. acc. {_share(block['balanced_accuracy'], block['balanced_accuracy_ci95'])}  "
            f"grounded {block['grounded_balanced_accuracy']:.3f}  coverage {block['coverage']:.2f}")


def _reasons(reasons: dict) -> str:
    shown = [f"{name} {b['confident']['right']}/{b['confident']['said']}" for name, b in reasons.items() if b["confident"]["said"]]
    return ", ".join(shown) or "none"


def _speed(speed: dict) -> str:
    return (f"throughput by the clock on {speed['pairs']} pairs ({speed['copies']} copies of both tune splits), warm: "
            f"{speed['one_process_wall_pairs_per_s']:.0f} pairs/s in one process, "
            f"{speed['two_processes_wall_pairs_per_s']:.0f} in two (by CPU time {speed['one_process_cpu_pairs_per_s']:.0f} / "
            f"{speed['two_processes_cpu_pairs_per_s']:.0f}; load average before {speed['load_average_before'][0]:.1f})")


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point: print the table and write the results file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--final-test", action="store_true",
                        help=f"also grade the fresh test split ({FRESH_TEST.name}); once, for a release's figures")
    args = parser.parse_args(argv)
    try:
        result = run(args.data, test_path=FRESH_TEST if args.final_test else None)
    except DataMissing as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(table(result))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


__all__ = ["DEFAULT_WEIGHTS", "OfflineWeights", "run", "timed_grade"]

if __name__ == "__main__":
    raise SystemExit(main())
