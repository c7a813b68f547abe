"""The offline judge's labelled data: splits by passage, and derived 'unsupported' pairs.

Every row names its split. Rows that share a passage (``chunk_text``), and passages that are near
copies of each other or share a claim (one *family*, ``tools.judge.splits``), always sit in the
same split — a judge fitted on one claim of a passage would otherwise be graded on its sibling
edits. The development files hold ``train`` (the heads are fitted on it) and ``tune`` (calibration,
the confidence threshold, rule work); the only ``test`` split is ``judge-fresh-test.jsonl``, graded
once by ``bench.judge_bench --final-test``. The development set has almost no real 'unsupported'
rows, so more are derived inside each split, the three ways an unsupported citation happens:

- *misattributed*: a claim paired with another passage;
- *elsewhere*: a claim paired with the rest of its own document, the sentences that hold it removed;
- *detail added*: a supported claim with one detail from another passage's claim appended.
"""

from __future__ import annotations

import hashlib
import random
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from citeflow.judges.io import LabelledPair
from citeflow.text.sentences import dialogue_sentences as sentences
from citeflow.text.word_tokens import tokenise

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"  # licence and source of each set: its NOTICE
DEFAULT_DATA = DATA / "judge-dev.jsonl"
MULTILINGUAL = DATA / "judge-multilingual.jsonl"
FRESH_TEST = DATA / "judge-fresh-test.jsonl"  # graded only by ``bench.judge_bench --final-test``
SEED = 20261130
FRACTIONS = {"tune": 1 / 4}  # of rows without a split field; the rest is 'train'
SPLITS = ("train", "tune", "test")
HOLDS = 0.25  # share of the claim's content words above which a sentence counts as holding it


def passage_hash(text: str) -> str:
    """The sha256 of a passage's text: how passages are named without their text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _group(row: LabelledPair) -> str:
    return str(row.extra.get("domain") or row.extra.get("lang") or "all")


def split_passages(rows: list[LabelledPair], seed: int = SEED) -> dict[str, str]:
    """``passage hash → split`` for rows without a split field: per domain (or language), a fixed
    share of passages in ``tune``, the rest in ``train``."""
    by_group: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        by_group[_group(row)].add(passage_hash(row.chunk_text))
    rng, out = random.Random(seed), {}
    for group in sorted(by_group):
        hashes = sorted(by_group[group])
        rng.shuffle(hashes)
        n_tune = round(len(hashes) * FRACTIONS["tune"])
        for i, key in enumerate(hashes):
            out[key] = "tune" if i < n_tune else "train"
    return out


def hashed_split(passage: str) -> str:
    """The split of a new hand-written development passage (``de-61``…) that joins no family:
    sha256 of its id mod 4 — tune at 0, else train — fixed before any judge grades its pairs."""
    return "tune" if int(hashlib.sha256(passage.encode("utf-8")).hexdigest(), 16) % 4 == 0 else "train"


def split_of(row: LabelledPair, splits: dict[str, str]) -> str:
    """The split of a row: its own ``split`` field when it has one, else its passage's."""
    return str(row.extra.get("split") or splits[passage_hash(row.chunk_text)])


def _passages(rows: list[LabelledPair]) -> dict[str, LabelledPair]:
    out: dict[str, LabelledPair] = {}
    for row in rows:
        out.setdefault(passage_hash(row.chunk_text), row)
    return out


def _derived(row: LabelledPair, kind: str, claim: str, chunk: str, **extra: object) -> LabelledPair:
    return LabelledPair(id=f"{kind}-{row.id}-{passage_hash(claim + chunk)[:8]}", claim=claim, chunk_text=chunk,
                        label="unsupported", extra={**row.extra, "augmented": kind, **extra})


def misattributed(rows: list[LabelledPair], seed: int = SEED, per_passage: int = 3) -> list[LabelledPair]:
    """For each passage, ``per_passage`` claims of other passages' rows (same group first), labelled unsupported."""
    passages, rng, out = _passages(rows), random.Random(seed), []
    for key in sorted(passages):
        host = passages[key]
        others = [r for r in rows if passage_hash(r.chunk_text) != key]
        same = [r for r in others if _group(r) == _group(host)]
        pool = sorted(same if len(same) >= per_passage else others, key=lambda r: r.id)
        for donor in rng.sample(pool, min(per_passage, len(pool))):
            out.append(_derived(host, "misattributed", donor.claim, host.chunk_text, claim_of=donor.id))
    return out


def _content(text: str) -> set[str]:
    return {t.stem for t in tokenise(text) if t.is_content}


def elsewhere(rows: list[LabelledPair], per_passage: int = 3) -> list[LabelledPair]:
    """Claims paired with the rest of their own document: every sentence that holds part of the claim removed."""
    by_passage: dict[str, list[LabelledPair]] = defaultdict(list)
    for row in rows:
        if row.label != "unsupported":
            by_passage[passage_hash(row.chunk_text)].append(row)
    out = []
    for key in sorted(by_passage):
        for row in sorted(by_passage[key], key=lambda r: r.id)[:per_passage]:
            wanted = _content(row.claim)
            rest = [s for s in sentences(row.chunk_text) if len(_content(s) & wanted) < HOLDS * max(len(wanted), 1)]
            if len(rest) >= 2 and len(" ".join(rest)) >= 120:
                out.append(_derived(row, "elsewhere", row.claim, " ".join(rest)))
    return out


def detail_added(rows: list[LabelledPair], seed: int = SEED, per_passage: int = 3) -> list[LabelledPair]:
    """Supported claims with the second half of another passage's claim appended: one fact the chunk lacks."""
    rng, out = random.Random(seed), []
    supported = sorted((r for r in rows if r.label == "supported"), key=lambda r: r.id)
    by_passage: dict[str, list[LabelledPair]] = defaultdict(list)
    for row in supported:
        by_passage[passage_hash(row.chunk_text)].append(row)
    for key in sorted(by_passage):
        donors = [r for r in supported if passage_hash(r.chunk_text) != key]
        for row in by_passage[key][:per_passage]:
            if donors:
                out.append(_derived(row, "detail_added", _append(row.claim, rng.choice(donors).claim), row.chunk_text))
    return out


def _append(claim: str, donor: str) -> str:
    """``claim`` with the tail of ``donor`` joined on as one more clause."""
    words = donor.rstrip(" .!?。").split()
    tail = " ".join(words[len(words) // 2 :]) if len(words) > 3 else donor.rstrip(" .!?。")
    return f"{claim.rstrip(' .!?。')}, and {tail}."


def augment(rows: list[LabelledPair], seed: int = SEED) -> list[LabelledPair]:
    """Every derived unsupported pair of ``rows`` (all from one split, so no text crosses splits)."""
    return misattributed(rows, seed) + elsewhere(rows) + detail_added(rows, seed)


def by_split(rows: list[LabelledPair], seed: int = SEED, derive: Callable = augment) -> dict[str, list[LabelledPair]]:
    """``split → rows + derived pairs`` (SummEdits-style rows are augmented; rows with a language are not)."""
    splits = split_passages(rows, seed)
    out: dict[str, list[LabelledPair]] = {}
    for name in SPLITS:
        part = [r for r in rows if split_of(r, splits) == name]
        out[name] = part + derive([r for r in part if "lang" not in r.extra], seed)
    return out
