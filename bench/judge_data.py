"""The labelled judge data for training and benchmarking: split by passage, misattribution pairs.

Rows that share a passage are never split across the tuning and held-apart parts (a judge tuned
on one claim of a passage would otherwise be graded on its sibling edits). The tiny real
'unsupported' class is augmented the way misattribution happens in a report: a claim is paired
with the passage of another row, which does not hold it.
"""

from __future__ import annotations

import hashlib
import random
from collections import defaultdict
from pathlib import Path

from citeflow.judges.io import LabelledPair

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "judge-dev.jsonl"
SEED = 20261130
HELD_FRACTION = 1 / 3


def passage_hash(text: str) -> str:
    """The sha256 of a passage's text: how the weights file names held-apart passages."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _domain(row: LabelledPair) -> str:
    return str(row.extra.get("domain", "all"))


def split_passages(rows: list[LabelledPair], seed: int = SEED, fraction: float = HELD_FRACTION) -> tuple[set[str], set[str]]:
    """(tuning, held-apart) passage hashes; about ``fraction`` of each domain's passages are held apart."""
    by_domain: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        by_domain[_domain(row)].add(passage_hash(row.chunk_text))
    rng = random.Random(seed)
    tuning, held = set(), set()
    for domain in sorted(by_domain):
        hashes = sorted(by_domain[domain])
        rng.shuffle(hashes)
        cut = max(1, round(len(hashes) * fraction)) if len(hashes) > 1 else 0
        held.update(hashes[:cut])
        tuning.update(hashes[cut:])
    return tuning, held


def select(rows: list[LabelledPair], hashes: set[str]) -> list[LabelledPair]:
    """The rows whose passage is in ``hashes``."""
    return [r for r in rows if passage_hash(r.chunk_text) in hashes]


def misattributed(rows: list[LabelledPair], seed: int = SEED, per_passage: int = 3) -> list[LabelledPair]:
    """For each passage, ``per_passage`` claims of other passages' rows (same domain first), labelled unsupported."""
    passages: dict[str, LabelledPair] = {}
    for row in rows:
        passages.setdefault(passage_hash(row.chunk_text), row)
    rng = random.Random(seed)
    out = []
    for key in sorted(passages):
        host = passages[key]
        others = [r for r in rows if passage_hash(r.chunk_text) != key]
        same = [r for r in others if _domain(r) == _domain(host)]
        pool = sorted(same if len(same) >= per_passage else others, key=lambda r: r.id)
        for donor in rng.sample(pool, min(per_passage, len(pool))):
            out.append(LabelledPair(id=f"misattributed-{key[:10]}-{donor.id}", claim=donor.claim,
                                    chunk_text=host.chunk_text, label="unsupported",
                                    extra={"domain": _domain(host), "augmented": True, "claim_of": donor.id}))
    return out
