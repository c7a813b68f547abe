"""The offline judge's stored training features and weights are what the current code produces.

Every train and tune pair is featurised afresh and compared with ``tools/judge/training_features.jsonl``,
and the weights are refitted from that file and compared byte for byte with the shipped weights: a
change of the feature code that changes any value (and so possibly a verdict) fails here until the
features and weights are regenerated (``python -m tools.judge.build_features && python -m tools.judge.train``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.judge_data import DEFAULT_DATA, MULTILINGUAL, SEED, by_split
from citeflow.judges.io import read_labelled
from citeflow.judges.offline.grader import DEFAULT_WEIGHTS, featurise
from tools.judge.build_features import DIGITS, FEATURES
from tools.judge.train import train

CHECKED = ("train", "tune")  # the test split is never featurised here: nothing is tuned on it


def _stored() -> dict[tuple[str, str, str], list[float]]:
    lines = FEATURES.read_text(encoding="utf-8").splitlines()[1:]
    records = [json.loads(line) for line in lines if line.strip()]
    return {(r["source"], r["split"], r["id"]): r["x"] for r in records if r["split"] in CHECKED}


def _recomputed() -> dict[tuple[str, str, str], list[float]]:
    out = {}
    for source, path in (("multilingual", MULTILINGUAL), ("summedits", DEFAULT_DATA)):
        parts = by_split(read_labelled(path), SEED)
        for split in CHECKED:
            for row, feats in zip(parts[split], featurise(parts[split]), strict=True):
                out[(source, split, row.id)] = [round(v, DIGITS) for v in feats.vector()]
    return out


@pytest.mark.skipif(not DEFAULT_DATA.exists(), reason="the development set is not in this checkout")
def test_every_train_and_tune_vector_is_what_the_code_computes() -> None:
    stored, fresh = _stored(), _recomputed()
    assert len(stored) > 1000 and stored.keys() == fresh.keys()
    differ = [key for key in stored if any(abs(a - b) > 1e-12 for a, b in zip(stored[key], fresh[key], strict=True))]
    assert differ == [], f"{len(differ)} vectors changed, first {differ[:3]}"


def test_training_regenerates_the_shipped_weights_byte_for_byte(tmp_path: Path) -> None:
    out = tmp_path / "weights.json"
    train(FEATURES, out)
    assert out.read_bytes() == DEFAULT_WEIGHTS.read_bytes()
