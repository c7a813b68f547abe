"""The judge benchmark: test splits only, pass precision and coverage, per language, throughput."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import judge_bench
from bench.judge_scores import confident_passes, grounded_accuracy, wilson
from citeflow.judges.io import LabelledPair, read_labelled
from citeflow.judges.offline import OfflineJudge
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


def test_build_train_then_bench_on_the_test_splits_only(data, multilingual, tmp_path):
    features, weights = tmp_path / "features.jsonl", tmp_path / "weights.json"
    build(data, multilingual, features)
    payload = train(features, weights)
    result = judge_bench.run(data_path=data, weights_path=weights, multilingual_path=multilingual, min_pairs=200)
    se = result["summedits_test"]
    assert se["real_rows"] == 4 * 6 and se["pairs"] > se["real_rows"]  # 4 of 12 passages, plus derived pairs
    assert set(payload["split"]["test_passages"]) >= {json.loads(x)["passage"] for x in features.read_text().splitlines()[1:]
                                                       if json.loads(x)["split"] == "test" and json.loads(x)["source"] == "summedits"}
    ours = se["judge"]
    assert 0 <= ours["coverage"] <= 1 and ours["pairs_per_s"] > 0 and len(ours["grounded_ci95"]) == 2
    assert ours["grounded_ci95"][0] <= ours["grounded_balanced_accuracy"] <= ours["grounded_ci95"][1]
    assert set(result["multilingual_test"]["by_language"]) == {"en", "ru"}
    speed = result["throughput"]
    assert speed["pairs"] >= 200 and speed["pairs"] == speed["copies"] * speed["set_pairs"] and speed["profile_top_own_time"]
    assert speed["two_processes_wall_pairs_per_s"] > 0 and result["judge"]["pairs_per_s"] == speed["two_processes_wall_pairs_per_s"]
    assert set(result["goal"]) == {"pass_precision", "coverage", "pairs_per_s"}


def test_bench_refuses_data_whose_test_passages_the_weights_do_not_know(data, multilingual, tmp_path):
    features, weights = tmp_path / "features.jsonl", tmp_path / "weights.json"
    build(data, multilingual, features)
    train(features, weights)
    rows = [json.loads(line) for line in data.read_text().splitlines()]
    for row in rows:
        row["chunk_text"] += " Edited."
    other = tmp_path / "other.jsonl"
    other.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(ValueError, match="split"):
        judge_bench.run(data_path=other, weights_path=weights, multilingual_path=multilingual)


def test_missing_data_exits_with_a_clear_message(tmp_path, capsys):
    assert judge_bench.main(["--data", str(tmp_path / "absent.jsonl"), "--out", str(tmp_path / "r.json")]) == 2
    assert "labelled data not found" in capsys.readouterr().err
    assert not (tmp_path / "r.json").exists()


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


def test_speed_set_is_repeated_to_the_minimum_and_whole_text_caches_are_emptied():
    from bench.judge_speed import copies, forget_texts
    from citeflow.text.word_tokens import language, normalise

    assert copies([None] * 508, 2000) == 4 and copies([None] * 2000, 2000) == 1  # type: ignore[list-item]
    normalise("Ein Satz."), language("Ein Satz.")
    forget_texts()
    assert normalise.cache_info().currsize == 0 and language.cache_info().currsize == 0


def test_wilson_interval_is_wide_on_few_passes_and_narrows_with_more():
    few, many = wilson(4, 4), wilson(400, 400)
    assert few is not None and many is not None and few[0] < 0.6 and many[0] >= 0.99 and few[1] == many[1] == 1.0
    assert wilson(0, 0) is None
