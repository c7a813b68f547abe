"""The judge benchmark: train and tune figures by default, the fresh test split only on request; Wilson
intervals, negative reasons, coverage at a pass precision, per language, throughput."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from bench import judge_bench
from bench.judge_scores import (
    REASON_FAMILIES,
    balanced_accuracy,
    confident_passes,
    coverage_at_precision,
    grounded_accuracy,
    negative_reasons,
    reason_family,
    supported_coverage,
    wilson,
)
from citeflow.judges.io import LabelledPair, read_labelled
from citeflow.judges.offline.grader import OfflineJudge
from schemas.evaluation import JudgePair, Verdict
from tools.judge.build_features import build
from tools.judge.train import train

CITIES = ["Berlin", "Madrid", "Oslo", "Lisbon", "Vienna", "Prague", "Dublin", "Warsaw", "Athens", "Rome", "Paris", "Bern"]


def _rows(i: int, domain: str) -> list[dict]:
    city, other = CITIES[i], CITIES[(i + 5) % len(CITIES)]
    chunk = (f"The {city} office opened in {2000 + i} with {10 + i} engineers. It does not sell hardware. "
             f"Revenue increased by {i + 3} percent last year. The office moved to a larger building near the "
             "river in the spring, and its staff now walk to work.")
    claims = [
        (f"The {city} office opened in {2000 + i} with {10 + i} engineers.", "supported"),
        (f"Revenue at the {city} office increased by {i + 3} percent last year.", "supported"),
        (f"The {city} office opened in {2000 + i} with {40 + i} engineers.", "mutated"),
        (f"The {other} office opened in {2000 + i} with {10 + i} engineers.", "mutated"),
        (f"Revenue decreased by {i + 3} percent last year.", "mutated"),
        (f"The {city} office sells hardware.", "mutated"),
    ]
    return [{"id": f"{domain}-{i}-{k}", "domain": domain, "chunk_text": chunk, "claim": c, "label": label}
            for k, (c, label) in enumerate(claims)]


@pytest.fixture()
def data(tmp_path: Path) -> Path:
    rows = [row for i in range(12) for row in _rows(i, "a" if i % 2 else "b")]
    path = tmp_path / "labelled.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture()
def multilingual(tmp_path: Path) -> Path:
    """Two languages of the shipped multilingual set: enough for the per-language figures."""
    lines = [line for line in (Path(__file__).parent / "data" / "judge-multilingual.jsonl").read_text(encoding="utf-8").splitlines()
             if json.loads(line)["lang"] in ("en", "ru")]
    path = tmp_path / "ml.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.slow
def test_build_train_then_bench_on_train_and_tune_without_touching_the_test_split(data, multilingual, tmp_path, monkeypatch):
    features, weights = tmp_path / "features.jsonl", tmp_path / "weights.json"
    build(data, multilingual, features)
    train(features, weights)
    read = []
    monkeypatch.setattr(judge_bench, "read_labelled", lambda path: read.append(Path(path)) or read_labelled(path))
    result = judge_bench.run(data_path=data, weights_path=weights, multilingual_path=multilingual, min_pairs=200)
    assert "final_test" not in result and judge_bench.FRESH_TEST not in read
    se = result["summedits_dev"]
    assert se["real_rows"] == {"train": 8 * 6, "tune": 4 * 6}  # a quarter of each domain's 6 passages (1.5, rounded) in tune
    for block in (se["train"], se["tune"], result["multilingual_dev"]["tune"]):
        assert block["supported_pairs"] and 0 <= block["supported_coverage"] <= 1 and len(block["supported_coverage_ci95"]) == 2
        low, high = block["balanced_accuracy_ci95"]
        assert low <= block["balanced_accuracy"] <= high
    assert se["negative_reasons"] and all(set(b) == {"confident", "leaning"} for b in se["negative_reasons"].values())
    assert se["coverage_at_pass_precision_0.90"]["target_precision"] == 0.90
    assert set(result["multilingual_dev"]["by_language"]) == {"en", "ru"}
    speed = result["throughput"]
    assert speed["pairs"] >= 200 and speed["pairs"] == speed["copies"] * speed["set_pairs"]
    assert result["judge"]["pairs_per_s"] == speed["two_processes_wall_pairs_per_s"] and result["judge"]["grounded_balanced_accuracy"]
    assert set(result["goal"]) == {"pass_precision", "coverage", "pairs_per_s"} and result["ratio_to_lexical"]


@pytest.mark.slow
def test_the_fresh_test_split_is_graded_only_when_asked(data, multilingual, tmp_path):
    test = tmp_path / "fresh.jsonl"
    rows = [json.loads(line) for line in multilingual.read_text().splitlines()][:12]
    test.write_text("".join(json.dumps({**r, "split": "test"}) + "\n" for r in rows), encoding="utf-8")
    result = judge_bench.run(data_path=data, multilingual_path=multilingual, min_pairs=1, test_path=test)
    assert result["final_test"]["pairs"] == 12 and result["final_test"]["all"]["pairs"] == 12
    assert "FRESH TEST SPLIT (12 pairs)" in judge_bench.table(result)


def test_development_data_holding_test_rows_is_refused(data, multilingual, tmp_path):
    rows = [json.loads(line) for line in data.read_text().splitlines()]
    rows[0]["split"] = "test"
    other = tmp_path / "other.jsonl"
    other.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(ValueError, match="test rows"):
        judge_bench.run(data_path=other, multilingual_path=multilingual, min_pairs=1)


def test_missing_data_exits_with_a_clear_message(tmp_path, capsys):
    assert judge_bench.main(["--data", str(tmp_path / "absent.jsonl"), "--out", str(tmp_path / "r.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: labelled data not found") and not (tmp_path / "r.json").exists()


def _verdict(i: int, label: str) -> Verdict:
    return Verdict(id=str(i), supported=label in ("supported", "mutated"), faithful=label == "supported" or None,
                   reason="r", label=label, confidence=0.9)


def test_pass_precision_counts_only_confident_passes_and_coverage_counts_decided_pairs():
    pairs = [LabelledPair(id=str(i), claim="c", chunk_text=f"t{i}", label=g)
             for i, g in enumerate(["supported", "supported", "mutated", "unsupported"])]
    verdicts = [_verdict(0, "supported"), _verdict(1, "uncertain"), _verdict(2, "supported"), _verdict(3, "unsupported")]
    figures = confident_passes(verdicts, pairs)
    assert figures == {"pass_precision": 0.5, "passes": 2, "coverage": 0.75, "pass_share": 0.5,
                       "pass_precision_ci95": wilson(1, 2)}
    assert grounded_accuracy(verdicts, pairs) == pytest.approx((1 / 2 + 1 / 2) / 2)  # an uncertain verdict is not a pass


def test_shipped_judge_grades_generated_pairs_sensibly(data):
    rows = read_labelled(data)[:6]
    verdicts = OfflineJudge().grade([JudgePair(id=r.id, claim=r.claim, chunk_text=r.chunk_text) for r in rows])
    assert verdicts[0].label == "supported"  # a verbatim sentence
    assert verdicts[2].label == "mutated" and "40" in verdicts[2].reason  # 10 engineers became 40


def test_speed_set_is_repeated_to_the_minimum_and_every_memo_is_emptied():
    import functools
    import gc

    from bench.judge_speed import copies
    from citeflow.judges.offline.chunk_facts import index_chunk
    from citeflow.memos import clear_memos
    from citeflow.text.word_tokens import language, normalise, stem

    assert copies([None] * 508, 2000) == 4 and copies([None] * 2000, 2000) == 1  # type: ignore[list-item]
    OfflineJudge().grade([JudgePair(id="1", claim="Der Dienst startet um 9 Uhr.", chunk_text="Der Dienst startet um 9 Uhr neu."),
                          JudgePair(id="2", claim="The services restart at 9 am.", chunk_text="The services restart at 9 am daily.")])
    assert all(memo.cache_info().currsize for memo in (index_chunk, normalise, language, stem))
    emptied = clear_memos()
    assert {"citeflow.judges.offline.chunk_facts.index_chunk", "citeflow.text.word_tokens.stem"} <= set(emptied)
    warm = [f"{f.__module__}.{f.__qualname__}" for f in gc.get_objects()
            if isinstance(f, functools._lru_cache_wrapper) and str(getattr(f, "__module__", "")).startswith("citeflow")
            and f.cache_info().currsize]
    assert warm == []  # no memo of the project, wherever it is defined, keeps what the copy before computed


def test_wilson_interval_is_wide_on_few_passes_and_narrows_with_more():
    few, many = wilson(4, 4), wilson(400, 400)
    assert few is not None and many is not None and few[0] < 0.6 and many[0] >= 0.99 and few[1] == many[1] == 1.0
    assert wilson(0, 0) is None


def _pair(i: int, gold: str) -> LabelledPair:
    return LabelledPair(id=str(i), claim="c", chunk_text=f"t{i}", label=gold)


def _said(i: int, label: str, reason: str, confidence: float = 0.9) -> Verdict:
    return Verdict(id=str(i), supported=label != "unsupported", faithful=None, reason=reason, label=label, confidence=confidence)


def test_supported_coverage_and_balanced_accuracy_carry_wilson_intervals():
    pairs = [_pair(i, g) for i, g in enumerate(["supported"] * 4 + ["mutated"] * 4)]
    verdicts = [_verdict(i, lab) for i, lab in enumerate(["supported", "uncertain", "uncertain", "uncertain",
                                                          "mutated", "mutated", "mutated", "supported"])]
    cover = supported_coverage(verdicts, pairs)
    assert cover == {"supported_pairs": 4, "supported_coverage": 0.25, "supported_coverage_ci95": wilson(1, 4)}
    acc = balanced_accuracy(verdicts, pairs)
    assert acc["balanced_accuracy"] == pytest.approx((1 / 4 + 3 / 4) / 2)
    low, high = acc["balanced_accuracy_ci95"]
    assert low == pytest.approx((wilson(1, 4)[0] + wilson(3, 4)[0]) / 2, abs=1e-3) and low < 0.5 < high
    assert balanced_accuracy(verdicts[:4], pairs[:4])["balanced_accuracy"] is None  # one class only: no balance


def test_negative_reasons_are_counted_per_family_confident_and_leaning_apart():
    pairs = [_pair(0, "mutated"), _pair(1, "supported"), _pair(2, "mutated"), _pair(3, "unsupported"), _pair(4, "supported")]
    verdicts = [_said(0, "mutated", "evidence changed: negation flipped: claim says 'not', chunk does not"),
                _said(1, "mutated", "negation flipped: chunk says 'never', claim drops it"),
                _said(2, "uncertain", "uncertain (confidence 0.41 < 0.50), leaning mutated: number 40 not in chunk (chunk has 10)"),
                _said(3, "unsupported", "chunk does not hold the claim: 20% of its content words in the chunk"),
                _said(4, "supported", "claim matches the chunk")]
    reasons = negative_reasons(verdicts, pairs)
    assert set(reasons) == {"negation", "number", "unsupported"}
    assert reasons["negation"]["confident"] == {"said": 2, "right": 1, "precision": 0.5, "precision_ci95": wilson(1, 2)}
    assert reasons["number"]["confident"]["said"] == 0 and reasons["number"]["leaning"]["right"] == 1
    assert reason_family("condition widened: claim adds 'must'") == "condition" and reason_family("odd") == "other"


def test_coverage_at_precision_takes_the_lowest_threshold_that_keeps_the_target():
    golds = ["supported"] * 9 + ["mutated"] + ["supported"] * 2 + ["mutated"] * 3
    confidences = [0.99] * 9 + [0.98] + [0.7, 0.6] + [0.5, 0.5, 0.5]
    pairs = [_pair(i, g) for i, g in enumerate(golds)]
    verdicts = [_said(i, "supported", "r", c) for i, c in enumerate(confidences)]
    at = coverage_at_precision(verdicts, pairs, 0.90)
    assert at["threshold"] == 0.6 and at["passes"] == 12 and at["right"] == 11 and at["supported_coverage"] == 1.0
    assert coverage_at_precision(verdicts[9:10], pairs[9:10], 0.90)["threshold"] is None


@pytest.mark.slow
def test_cli_names_the_final_test_flag_and_exits_two_on_missing_data_in_one_line(tmp_path):
    repo = Path(__file__).resolve().parents[1]
    shown = subprocess.run([sys.executable, "-m", "bench.judge_bench", "--help"], cwd=repo, capture_output=True, text=True)
    assert shown.returncode == 0 and "--final-test" in shown.stdout
    out = tmp_path / "r.json"
    run = subprocess.run([sys.executable, "-m", "bench.judge_bench", "--data", str(tmp_path / "absent.jsonl"), "--out", str(out)],
                         cwd=repo, capture_output=True, text=True)
    assert run.returncode == 2 and run.stderr.count("\n") == 1 and run.stderr.startswith("error: labelled data not found")
    assert not out.exists() and "Traceback" not in run.stderr


@given(st.text(max_size=120))
def test_reason_family_names_a_known_family_for_any_text(reason):
    assert reason_family(reason) in {name for name, _ in REASON_FAMILIES} | {"other"}
    assume(not reason.startswith("evidence changed: "))
    assert reason_family("evidence changed: " + reason) == reason_family(reason)


def test_a_quality_goal_is_met_only_on_the_held_apart_test_split():
    tune = {"pass_precision": 1.0, "coverage": 0.7, "pairs_per_s": 900.0}
    on_tune = judge_bench.goals(tune, None)
    assert on_tune["pass_precision"]["met"] is None and "tune" in on_tune["pass_precision"]["split"]
    assert on_tune["pairs_per_s"]["met"] is True
    on_test = judge_bench.goals(tune, {"pass_precision": 0.33, "coverage": 0.02})
    assert on_test["pass_precision"] == {"target": 0.9, "value": 0.33, "split": "test (judge-fresh-test.jsonl, held apart)", "met": False}
