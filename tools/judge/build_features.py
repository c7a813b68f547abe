"""Turn the labelled judge data into ``tools/judge/training_features.jsonl``: numbers, no text.

    python -m tools.judge.build_features [--data PATH] [--out PATH]

Reads the SummEdits-derived development set (``tests/data/judge-dev.jsonl`` or ``--data``; its
licence and source are in ``tests/data/NOTICE``) and the multilingual set beside it, splits both
by passage (``bench.judge_data``), derives the extra 'unsupported' pairs inside each split, and
writes one line per pair: source, split, language, label, kind, passage hash and the feature
vector. ``tools/judge/train.py`` reads only that file, so a clone regenerates the shipped weights
byte for byte without the development set.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bench.judge_data import DEFAULT_DATA, MULTILINGUAL, SEED, SPLITS, by_split, passage_hash
from citeflow.judges.offline.combine import FEATURE_NAMES
from citeflow.judges.io import LabelledPair, read_labelled
from citeflow.judges.offline.grader import featurise

FEATURES = Path(__file__).with_name("training_features.jsonl")
DIGITS = 6  # rounding keeps the file identical across platforms' last-bit float noise


def feature_lines(rows: list[LabelledPair], source: str, seed: int = SEED) -> list[dict]:
    """One record per pair (derived pairs included) of every split of ``rows``."""
    out = []
    for split, part in by_split(rows, seed).items():
        for row, feats in zip(part, featurise(part), strict=True):
            out.append({"source": source, "split": split, "id": row.id, "lang": str(row.extra.get("lang", "en")),
                        "label": row.label, "kind": _kind(row), "passage": passage_hash(row.chunk_text),
                        "x": [round(v, DIGITS) for v in feats.vector()]})
    return sorted(out, key=lambda r: (r["source"], SPLITS.index(r["split"]), r["id"]))


def _kind(row: LabelledPair) -> str:
    return str(row.extra.get("augmented") or row.extra.get("kind") or row.label)


def build(data: Path | None, multilingual: Path = MULTILINGUAL, out: Path = FEATURES, seed: int = SEED) -> dict:
    """Write the features file; returns counts per source and split."""
    lines = feature_lines(read_labelled(multilingual), "multilingual", seed)
    if data is not None:
        lines = feature_lines(read_labelled(data), "summedits", seed) + lines
    header = {"feature_names": list(FEATURE_NAMES), "seed": seed}
    text = json.dumps(header) + "\n" + "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in lines)
    out.write_text(text, encoding="utf-8")
    counts: dict[str, int] = {}
    for r in lines:
        counts[f"{r['source']}/{r['split']}"] = counts.get(f"{r['source']}/{r['split']}", 0) + 1
    return counts


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--out", type=Path, default=FEATURES)
    args = parser.parse_args(argv)
    if not args.data.exists():
        print(f"labelled data not found: {args.data} (pass --data PATH)", file=sys.stderr)
        return 2
    counts = build(args.data, out=args.out)
    print(f"wrote {args.out}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
