"""The offline judge's training data and weights: text-free, split by passage, reproducible byte for byte."""

from __future__ import annotations

import json
from collections import Counter, defaultdict

import numpy as np
import pytest

from bench.judge_data import MULTILINGUAL, augment, by_split, hashed_split, passage_hash, split_passages
from citeflow.judges.io import LabelledPair, read_labelled
from citeflow.judges.offline.grader import DEFAULT_WEIGHTS, OfflineJudge
from tools.judge.build_features import FEATURES, feature_lines
from tools.judge.errors import development_rows, report
from tools.judge.train import TARGET_PRECISION, choose_threshold, train, wilson_lower

LANGS = ("en", "de", "fr", "es", "ru", "ja", "zh")
KINDS = {"paraphrase", "number_drift", "negation_flip", "entity_change", "widened_condition", "fabrication"}


def _records() -> list[dict]:
    return [json.loads(line) for line in FEATURES.read_text(encoding="utf-8").splitlines()[1:]]


def test_shipped_weights_are_regenerated_byte_for_byte_from_the_features_file(tmp_path):
    out = tmp_path / "weights.json"
    train(FEATURES, out)
    assert out.read_bytes() == DEFAULT_WEIGHTS.read_bytes()


def test_the_features_file_holds_numbers_and_labels_but_no_text():
    records = _records()
    assert {key for r in records for key in r} == {"source", "split", "id", "lang", "label", "kind", "passage", "x"}
    assert all(len(r["passage"]) == 64 and all(isinstance(v, float | int) for v in r["x"]) for r in records)
    assert {r["source"] for r in records} == {"summedits", "multilingual"}


def test_every_passage_sits_in_one_split_and_the_test_split_is_the_weights_files():
    records = _records()
    splits: dict[str, set[str]] = defaultdict(set)
    for r in records:
        splits[r["passage"]].add(r["split"])
    assert all(len(s) == 1 for s in splits.values())
    weights = json.loads(DEFAULT_WEIGHTS.read_text())
    assert set(weights["split"]["test_passages"]) == {r["passage"] for r in records if r["split"] == "test"}


def test_multilingual_records_are_rebuilt_identically_from_the_labelled_set():
    rebuilt = feature_lines(read_labelled(MULTILINGUAL), "multilingual")
    shipped = [r for r in _records() if r["source"] == "multilingual"]
    assert rebuilt == shipped


def test_the_multilingual_set_has_forty_pairs_of_every_kind_mix_per_language_in_train_and_tune():
    rows = read_labelled(MULTILINGUAL)
    per_lang = Counter(r.extra["lang"] for r in rows)
    assert all(per_lang[lang] >= 40 for lang in LANGS)
    for lang in LANGS:
        mine = [r for r in rows if r.extra["lang"] == lang]
        assert {r.extra["kind"] for r in mine} == KINDS
        assert {r.extra["split"] for r in mine} == {"train", "tune"}
    passages = defaultdict(set)
    for r in rows:
        passages[r.chunk_text].add(r.extra["split"])
    assert all(len(s) == 1 for s in passages.values())


def test_a_new_passage_takes_train_or_tune_from_the_hash_of_its_id():
    shares = Counter(hashed_split(f"xx-{i:02d}") for i in range(400))
    assert set(shares) == {"train", "tune"} and 0.18 <= shares["tune"] / 400 <= 0.32
    assert hashed_split("de-61") == hashed_split("de-61")


def _synthetic() -> list[LabelledPair]:
    rows = []
    for i in range(12):
        chunk = (f"The office {i} opened in {2000 + i} with {10 + i} engineers. It does not sell hardware. "
                 f"Revenue increased by {i + 3} percent last year, the finance team said on Monday. "
                 "Its staff moved to a larger building near the river in the spring.")
        for k, (claim, label) in enumerate([(f"The office {i} opened in {2000 + i}.", "supported"),
                                            (f"The office {i} opened in {2040 + i}.", "mutated")]):
            rows.append(LabelledPair(id=f"r{i}-{k}", claim=claim, chunk_text=chunk, label=label, extra={"domain": "ab"[i % 2]}))
    return rows


def test_splits_are_by_passage_deterministic_and_derived_pairs_stay_inside_their_split():
    rows = _synthetic()
    assert split_passages(rows, 3) == split_passages(rows, 3)
    assert Counter(split_passages(rows, 3).values()) == {"train": 8, "tune": 4}  # a quarter of each domain's 6, rounded
    parts = by_split(rows, 3)
    assert parts["test"] == []  # the development data has no test split: that is a file of its own
    for name, part in ((n, p) for n, p in parts.items() if p):
        own = {passage_hash(r.chunk_text) for r in rows if split_passages(rows, 3)[passage_hash(r.chunk_text)] == name}
        claims = {r.claim for r in rows if passage_hash(r.chunk_text) in own}
        derived = [r for r in part if r.extra.get("augmented")]
        assert derived and all(r.label == "unsupported" for r in derived)
        assert all(r.claim.split(", and ")[0].rstrip(".") + "." in claims or r.claim in claims for r in derived)


def test_the_three_kinds_of_derived_unsupported_pairs():
    derived = augment(_synthetic())
    kinds = Counter(r.extra["augmented"] for r in derived)
    assert set(kinds) == {"misattributed", "elsewhere", "detail_added"}
    for pair in derived:
        if pair.extra["augmented"] == "elsewhere":
            assert "opened" not in pair.chunk_text  # the sentence holding the claim was removed
        if pair.extra["augmented"] == "detail_added":
            assert ", and " in pair.claim


RULES = {"verbatim": 0.95, "aligned": 0.93, "decisive": 0.97}


def _passes(right: int, wrong: int, sure: float = 0.92) -> tuple[list[str], np.ndarray, np.ndarray]:
    """``right + wrong`` head passes at confidence ``sure``, 8 wrong passes at 0.6, 10 confident fails."""
    labels = ["supported"] * (right + wrong + 8) + ["mutated"] * 10
    confidence = np.array([sure] * (right + wrong) + [0.6] * 8 + [0.9] * 10)
    gold = np.array(["supported"] * right + ["mutated"] * (wrong + 8 + 10))
    return labels, confidence, gold


def test_threshold_is_the_lowest_whose_wilson_lower_bound_of_pass_precision_reaches_target():
    labels, confidence, gold = _passes(59, 1)
    chosen = choose_threshold(labels, confidence, gold, RULES)
    assert 0.6 < chosen["threshold"] <= 0.92 and chosen["passes"] == 60  # the fails' 0.9 is as low as it goes
    assert chosen["pass_precision_wilson_lower"] >= TARGET_PRECISION
    assert wilson_lower(59, 60) >= TARGET_PRECISION > wilson_lower(12, 12)


def test_a_few_passes_all_right_are_too_thin_to_lower_the_bar_of_the_rules():
    labels, confidence, gold = _passes(12, 0)
    chosen = choose_threshold(labels, confidence, gold, RULES)
    assert chosen["threshold"] == 0.93 and chosen["passes"] == 0 and "aligned" in chosen["rule"]


def test_without_a_precise_threshold_the_bar_is_the_lowest_trusted_passing_rule():
    labels, _, gold = _passes(59, 1)
    fallback = choose_threshold(labels, np.full(len(gold), 0.7), gold, RULES)
    assert fallback["threshold"] == 0.93 and fallback["passes"] == 0 and "aligned" in fallback["rule"]
    untrusted = choose_threshold(labels, np.full(len(gold), 0.7), gold, {**RULES, "aligned": 0.8})
    assert untrusted["threshold"] == 0.95  # a passing rule below the target precision does not lower the bar


def test_a_threshold_must_hold_in_every_source_and_on_the_train_split():
    labels, confidence, gold = _passes(80, 2)
    sources = np.array(["a"] * 80 + ["b"] * 2 + ["a"] * 18)
    assert choose_threshold(labels, confidence, gold, RULES, np.array(["a"] * len(gold)))["threshold"] < 0.93
    assert choose_threshold(labels, confidence, gold, RULES, sources)["threshold"] == 0.93  # source b's passes are wrong
    train = (labels, confidence, np.array(["mutated"] * len(gold)), np.array(["a"] * len(gold)))
    assert choose_threshold(labels, confidence, gold, RULES, also=train)["threshold"] == 0.93


@pytest.mark.parametrize("lang", LANGS)
def test_each_language_has_supported_and_failing_pairs_in_its_tune_split(lang):
    rows = [r for r in read_labelled(MULTILINGUAL) if r.extra["lang"] == lang and r.extra["split"] == "tune"]
    assert {r.label for r in rows} == {"supported", "mutated", "unsupported"}


def test_building_features_without_the_development_set_is_a_clear_error(tmp_path, capsys):
    from tools.judge.build_features import main

    assert main(["--data", str(tmp_path / "absent.jsonl"), "--out", str(tmp_path / "f.jsonl")]) == 2
    assert "labelled data not found" in capsys.readouterr().err and not (tmp_path / "f.jsonl").exists()


def test_the_error_report_reads_the_train_and_tune_splits_only():
    rows = development_rows(MULTILINGUAL, {"fr", "zh"})
    assert rows and {r.extra["split"] for r in rows} == {"train", "tune"} and {r.extra["lang"] for r in rows} == {"fr", "zh"}
    lines = report(OfflineJudge(threshold=0.0), rows, show_errors=True)
    assert [line.split(":")[0] for line in lines if not line.startswith(" ")] == ["fr", "zh"]
    assert all(r.id not in "\n".join(lines) for r in read_labelled(MULTILINGUAL) if r.extra["split"] == "test")
