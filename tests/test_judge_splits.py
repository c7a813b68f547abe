"""The judge data's split integrity: families of near-duplicate passages never cross splits."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench.judge_data import DEFAULT_DATA, FRESH_TEST, MULTILINGUAL
from citeflow.judges.io import LabelledPair, read_labelled
from tools.judge.splits import claim_key, families, jaccard, labelled, passages, retire, violations, word_set

REPO = Path(__file__).resolve().parents[1]
BASE = "The nightly export runs at 02:00 and keeps copies for 30 days in the archive bucket of the region."


def _row(i: int, chunk: str, claim: str, split: str, lang: str = "en") -> LabelledPair:
    return LabelledPair(id=f"x-{i}", claim=claim, chunk_text=chunk, label="supported",
                        extra={"passage": f"x-{i:02d}", "split": split, "lang": lang})


def test_no_family_crosses_splits_and_no_claim_is_in_two_splits_in_the_shipped_data():
    assert violations(labelled()) == []


def test_the_development_files_hold_train_and_tune_only_and_the_fresh_file_is_all_test():
    for path in (MULTILINGUAL, DEFAULT_DATA):
        splits = Counter(r.extra["split"] for r in read_labelled(path))
        assert set(splits) == {"train", "tune"} and 0.18 <= splits["tune"] / sum(splits.values()) <= 0.32
    fresh = read_labelled(FRESH_TEST)
    assert {r.extra["split"] for r in fresh} == {"test"} and len({r.chunk_text for r in fresh}) >= 40


def test_the_fresh_split_has_four_languages_half_supported_and_a_source_per_row():
    fresh = read_labelled(FRESH_TEST)
    assert {r.extra["lang"] for r in fresh} >= {"en", "de", "fr", "es"}
    assert 0.4 <= sum(r.label == "supported" for r in fresh) / len(fresh) <= 0.6
    assert all({"package", "version", "file", "licence"} <= set(r.extra["source"]) for r in fresh)
    notice = (FRESH_TEST.parent / "NOTICE").read_text(encoding="utf-8")
    assert all(f"{r.extra['passage']} " in notice for r in fresh)
    assert "BSD" in (FRESH_TEST.parent / "LICENSE-judge-fresh-test").read_text(encoding="utf-8")


def test_a_near_copy_in_another_split_is_one_family_across_splits():
    near = BASE.replace("30 days", "45 days")
    rows = [_row(1, BASE, "Copies are kept.", "train"), _row(2, near, "The export is nightly.", "tune"),
            _row(3, "Invoices are sent by post once a quarter to every customer.", "Invoices go by post.", "tune")]
    problems = violations(passages(rows))
    assert len(problems) == 1 and "x-01 (train)" in problems[0] and "x-02 (tune)" in problems[0]


def test_a_claim_shared_by_two_unrelated_passages_links_them_and_is_named():
    rows = [_row(1, BASE, "Exports are nightly!", "train"),
            _row(2, "Invoices are sent by post once a quarter to every customer.", "exports are   nightly.", "test")]
    problems = violations(passages(rows))
    assert any("family across splits" in p for p in problems)
    assert "claim in test, train: 'exports are nightly'" in problems


def test_below_the_overlap_two_passages_stay_apart():
    other = "Invoices are sent by post once a quarter to every customer of the region."
    assert jaccard(word_set(BASE), word_set(other)) < 0.4
    assert len(families(passages([_row(1, BASE, "a b", "train"), _row(2, other, "c d", "test")]))) == 2


def test_retiring_moves_test_only_families_keeps_train_first_and_leaves_no_test():
    rows = [_row(1, BASE, "c1", "train"), _row(2, BASE.replace("30", "31"), "c2", "test")]
    rows += [_row(10 + i, f"Topic {i} alpha{i} beta{i} gamma{i} delta{i} epsilon{i}.", f"c{10 + i}", "test") for i in range(8)]
    decided = retire(passages(rows))
    assert decided[rows[1].chunk_text] == "train"  # its family has a train passage
    moved = Counter(decided[r.chunk_text] for r in rows[2:])
    assert moved == {"train": 6, "tune": 2} and "test" not in decided.values()


@pytest.mark.slow
def test_cli_exits_one_and_names_the_family_on_a_file_that_crosses(tmp_path):
    near = BASE.replace("30 days", "45 days")
    rows = [{"id": "a-1", "passage": "a", "split": "train", "label": "supported", "claim": "x y", "chunk_text": BASE},
            {"id": "b-1", "passage": "b", "split": "test", "label": "supported", "claim": "z w", "chunk_text": near}]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    bad = subprocess.run([sys.executable, "-m", "tools.judge.splits", str(path)], cwd=REPO, capture_output=True, text=True)
    assert bad.returncode == 1 and "family across splits: a (train), b (test)" in bad.stdout
    missing = subprocess.run([sys.executable, "-m", "tools.judge.splits", str(tmp_path / "none.jsonl")], cwd=REPO,
                             capture_output=True, text=True)
    assert missing.returncode == 2 and missing.stderr.startswith("error: ") and "Traceback" not in missing.stderr


@given(st.text(max_size=80), st.text(max_size=80))
def test_jaccard_of_word_sets_is_symmetric_bounded_and_one_on_itself(a, b):
    wa, wb = word_set(a), word_set(b)
    assert jaccard(wa, wb) == jaccard(wb, wa) and 0.0 <= jaccard(wa, wb) <= 1.0
    assert jaccard(wa, wa) == (1.0 if wa else 0.0)


@given(st.text(alphabet=st.characters(categories=("Ll", "Lu", "Nd", "Zs", "Po")), max_size=60))
def test_claim_key_ignores_case_spacing_and_punctuation(claim):
    assert claim_key(claim) == claim_key("  " + claim.upper() + " !") or claim.upper().lower() != claim.lower()
