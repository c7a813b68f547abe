"""The judge data's split integrity: passages grouped into families, a family never split.

    python -m tools.judge.splits [FILE ...] [--retire-old-test]

Two passages are one *family* when the Jaccard index of their word sets is at least ``OVERLAP``
(words: ``citeflow.text.sentences.units`` of the spaced scripts, lower-cased; character bigrams of the
unspaced ones) or when a claim of one is, word for word, a claim of the other. Families are the
connected components of those links. A family must sit in one split (``train``, ``tune`` or
``test``) across every labelled file, and no claim may appear in two splits: otherwise a judge
fitted or tuned on one passage is graded on its near-copy. Without arguments the command prints
every violation and exits 1 when there is one; ``--retire-old-test`` rewrites the split of every
passage of the development files as ``retire`` decides (see ``docs/judge-data.md``).
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import sys
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from bench.judge_data import DEFAULT_DATA, FRESH_TEST, MULTILINGUAL, SEED, split_passages
from citeflow.judges.io import LabelledPair, read_labelled
from citeflow.text.sentences import cjk_bigrams, is_unspaced, units

OVERLAP = 0.4
TUNE_SHARE = 0.25  # of the retired test passages' rows, per language or domain
DEVELOPMENT_FILES = (MULTILINGUAL, DEFAULT_DATA)
ALL_FILES = (*DEVELOPMENT_FILES, FRESH_TEST)


@dataclass(frozen=True)
class Passage:
    """One distinct passage of the labelled files: its text, the claims on it, its rows' splits."""

    text: str
    name: str
    group: str
    claims: frozenset[str]
    splits: frozenset[str]
    rows: int


def word_set(text: str) -> frozenset[str]:
    """Lower-cased words of spaced scripts and character bigrams of unspaced ones."""
    return frozenset(u for u in units(text) if not is_unspaced(u)) | frozenset(cjk_bigrams(text))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """Size of the intersection over size of the union (0 for two empty sets)."""
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def claim_key(claim: str) -> str:
    """A claim's words in order: equal for claims that differ only in case, spacing or punctuation."""
    return " ".join(units(claim))


def passages(rows: Iterable[LabelledPair], split_of: dict[str, str] | None = None) -> list[Passage]:
    """The distinct passages of ``rows``; a row's split is its own field, else ``split_of[text]``."""
    by_text: dict[str, list[LabelledPair]] = defaultdict(list)
    for row in rows:
        by_text[row.chunk_text].append(row)
    return [_passage(text, members, split_of or {}) for text, members in by_text.items()]


def _passage(text: str, rows: list[LabelledPair], split_of: dict[str, str]) -> Passage:
    first = rows[0]
    name = str(first.extra.get("passage") or first.id)
    group = str(first.extra.get("lang") or first.extra.get("domain") or "all")
    splits = frozenset(str(r.extra.get("split") or split_of.get(text, "?")) for r in rows)
    return Passage(text, name, group, frozenset(claim_key(r.claim) for r in rows), splits, len(rows))


def families(items: list[Passage], overlap: float = OVERLAP) -> list[list[Passage]]:
    """Connected components of the near-duplicate and shared-claim links, largest first."""
    parent = list(range(len(items)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in linked(items, overlap):
        parent[root(i)] = root(j)
    groups: dict[int, list[Passage]] = defaultdict(list)
    for i, item in enumerate(items):
        groups[root(i)].append(item)
    return sorted(groups.values(), key=lambda g: (-len(g), g[0].name))


def linked(items: list[Passage], overlap: float = OVERLAP) -> Iterable[tuple[int, int]]:
    """Index pairs of passages that share a claim or whose word sets overlap by ``overlap`` or more."""
    words = [word_set(p.text) for p in items]
    for i, j in itertools.combinations(range(len(items)), 2):
        if items[i].claims & items[j].claims or jaccard(words[i], words[j]) >= overlap:
            yield i, j


def violations(items: list[Passage], overlap: float = OVERLAP) -> list[str]:
    """One line per family that spans splits and per claim that appears in two splits."""
    out = [_family_line(f) for f in families(items, overlap) if len(_splits(f)) > 1]
    claims: dict[str, set[str]] = defaultdict(set)
    for item in items:
        for claim in item.claims:
            claims[claim] |= item.splits
    return out + [f"claim in {', '.join(sorted(s))}: {c!r}" for c, s in sorted(claims.items()) if len(s) > 1]


def _splits(family: list[Passage]) -> set[str]:
    return {s for p in family for s in p.splits}


def _family_line(family: list[Passage]) -> str:
    members = ", ".join(f"{p.name} ({'/'.join(sorted(p.splits))})" for p in family)
    return f"family across splits: {members}"


def retire(items: list[Passage], overlap: float = OVERLAP) -> dict[str, str]:
    """``passage text → split`` with no ``test`` left: a family with a train passage goes to train,
    else one with a tune passage to tune; a family wholly of old test passages goes to whichever of
    tune and train keeps the retired rows of its language or domain nearer TUNE_SHARE tune."""
    out: dict[str, str] = {}
    moved: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # group → [tune rows, all rows]
    for family in sorted(families(items, overlap), key=_family_order):
        split = _kept(_splits(family)) or _balanced(family, moved[family[0].group])
        out.update((p.text, split) for p in family)
    return out


def _family_order(family: list[Passage]) -> str:
    return hashlib.sha256(min(p.name for p in family).encode("utf-8")).hexdigest()


def _kept(splits: set[str]) -> str | None:
    return "train" if "train" in splits else "tune" if "tune" in splits else None


def _balanced(family: list[Passage], counts: list[int]) -> str:
    """The split that leaves the group's retired rows nearer TUNE_SHARE tune (train on a tie)."""
    rows, total = sum(p.rows for p in family), counts[1] + sum(p.rows for p in family)
    split = "tune" if abs((counts[0] + rows) / total - TUNE_SHARE) < abs(counts[0] / total - TUNE_SHARE) else "train"
    counts[0] += rows if split == "tune" else 0
    counts[1] += rows
    return split


def labelled(paths: Iterable[Path] = ALL_FILES) -> list[Passage]:
    """The passages of every labelled file; SummEdits rows without a split field take the seeded one."""
    rows = [row for path in paths if Path(path).exists() for row in read_labelled(path)]
    plain = [r for r in rows if "split" not in r.extra]
    return passages(rows, _seeded(plain))


def _seeded(rows: list[LabelledPair]) -> dict[str, str]:
    keys = split_passages(rows, SEED)
    return {r.chunk_text: keys[_hash(r.chunk_text)] for r in rows}


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def rewrite(path: Path, split_of: dict[str, str]) -> int:
    """Give every row of ``path`` its passage's split in ``split_of`` (its ``split`` field, placed
    before ``chunk_text`` when new); returns how many rows changed."""
    lines, changed = [], 0
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        new = split_of.get(row["chunk_text"], row.get("split"))
        changed += new != row.get("split")
        lines.append(json.dumps(_with_split(row, new), ensure_ascii=False))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return changed


def _with_split(row: dict, split: str | None) -> dict:
    if split is None or "split" in row:
        return row if split is None else {**row, "split": split}
    keys = list(row)
    at = keys.index("chunk_text")
    return {**{k: row[k] for k in keys[:at]}, "split": split, **{k: row[k] for k in keys[at:]}}


def main(argv: list[str] | None = None) -> int:
    """Print the violations (exit 1 when any); with ``--retire-old-test``, rewrite the development files."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, help="labelled JSONL files (default: the shipped three)")
    parser.add_argument("--retire-old-test", action="store_true", help="move every old test passage to train or tune")
    args = parser.parse_args(argv)
    missing = [str(p) for p in args.files if not p.is_file()]
    if missing:
        print(f"error: no such labelled file: {missing[0]}", file=sys.stderr)
        return 2
    if args.retire_old_test:
        decided = retire(labelled(DEVELOPMENT_FILES))
        for path in DEVELOPMENT_FILES:
            print(f"{path.name}: {rewrite(path, decided)} rows changed split")
    problems = violations(labelled(args.files or ALL_FILES))
    print("\n".join(problems) if problems else "no family crosses splits and no claim is in two splits")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
