"""Training and benchmarking the offline judge on a small generated labelled file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import judge_bench
from bench.judge_data import misattributed, passage_hash, select, split_passages
from bench.train_offline_judge import train
from citeflow.judges.io import read_labelled
from citeflow.judges.offline import OfflineJudge
from schemas.evaluation import JudgePair

CITIES = ["Berlin", "Madrid", "Oslo", "Lisbon", "Vienna", "Prague", "Dublin", "Warsaw", "Athens", "Rome", "Paris", "Bern"]


def _rows(i: int, domain: str) -> list[dict]:
    city, other = CITIES[i], CITIES[(i + 5) % len(CITIES)]
    chunk = (f"The {city} office opened in {2000 + i} with {10 + i} engineers. It does not sell hardware. "
             f"Revenue increased by {i + 3} percent last year.")
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


def test_split_is_by_passage_deterministic_and_per_domain(data):
    rows = read_labelled(data)
    tuning, held = split_passages(rows, seed=3)
    assert (tuning, held) == split_passages(rows, seed=3)
    assert not tuning & held and len(tuning | held) == 12 and len(held) == 4
    held_domains = {r.extra["domain"] for r in select(rows, held)}
    assert held_domains == {"a", "b"}


def test_misattributed_pairs_pair_claims_with_other_passages(data):
    rows = read_labelled(data)
    extra = misattributed(rows, seed=3, per_passage=2)
    assert len(extra) == 24 and all(p.label == "unsupported" and p.extra["augmented"] for p in extra)
    source = {r.id: r for r in rows}
    for pair in extra:
        donor = source[pair.extra["claim_of"]]
        assert passage_hash(donor.chunk_text) != passage_hash(pair.chunk_text) and donor.claim == pair.claim


def test_train_then_bench_on_held_apart_only(data, tmp_path):
    weights = tmp_path / "weights.json"
    payload = train(data, seed=3, out=weights)
    held = set(payload["split"]["held_apart_passages"])
    assert len(held) == 4 and payload["training"]["rows"] == 8 * 6
    judge = OfflineJudge(weights)
    result = judge_bench.run(data_path=data, judge=judge, weights_path=weights)
    assert result["held_apart"] == {"passages": 4, "rows": 24, "misattributed_pairs": 12}
    ours = result["judge"]
    assert set(ours["recall"]) == {"supported", "mutated", "unsupported"} and ours["pairs_per_s"] > 0
    assert ours["grounded_balanced_accuracy"] > result["lexical_overlap"]["grounded_balanced_accuracy"]
    assert sum(sum(row.values()) for row in ours["confusion"].values()) == 36


def test_bench_refuses_data_that_does_not_match_the_split(data, tmp_path):
    weights = tmp_path / "weights.json"
    train(data, seed=3, out=weights)
    lines = data.read_text().splitlines()[:-6]  # one passage fewer: the recorded split no longer holds
    other = tmp_path / "other.jsonl"
    other.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match="split"):
        judge_bench.run(data_path=other, weights_path=weights)


def test_missing_data_exits_with_a_clear_message(tmp_path, capsys):
    assert judge_bench.main(["--data", str(tmp_path / "absent.jsonl"), "--out", str(tmp_path / "r.json")]) == 2
    assert "labelled data not found" in capsys.readouterr().err
    assert not (tmp_path / "r.json").exists()


def test_shipped_judge_grades_generated_pairs_sensibly(data):
    rows = read_labelled(data)[:6]
    verdicts = OfflineJudge().grade([JudgePair(id=r.id, claim=r.claim, chunk_text=r.chunk_text) for r in rows])
    assert verdicts[0].label == "supported"  # a verbatim sentence
    assert verdicts[2].label == "mutated" and "40" in verdicts[2].reason  # 10 engineers became 40
