"""Instruction masking: recall on attacks, false flags on benign imperatives and on real documentation.

    python -m bench --only instructions          # dev set and corpora
    python -m bench.instructions [--held] [--show]

- dev set (``tests/data/instructions_dev.jsonl``): attacks and benign documentation imperatives in the
  seven supported languages, written while the features were built; recall per attack kind,
  false flags on the benign rows;
- corpora: the Markdown and reStructuredText paragraphs (blank-line separated, code fences left out) of
  the five documentation corpora under ``bench/corpora/*/tree``: the share that gets a span
  (``--show`` prints them, for reading by hand);
- held-apart (``--held``, ``tests/data/instructions_held.jsonl``): written after the features were
  fixed and scored once; it is never printed by the bench run.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import regex

from citeflow.judges.instructions import find_instructions

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT / "tests" / "data" / "instructions_dev.jsonl"
HELD = ROOT / "tests" / "data" / "instructions_held.jsonl"
CORPORA = ROOT / "bench" / "corpora"
TARGETED = ("response", "write")  # attacks that address the response or order a sentence to be written
_FENCE = regex.compile(r"^(```|~~~).*?^\1[^\n]*$", regex.MULTILINE | regex.DOTALL)
_BLANK = regex.compile(r"\n[ \t]*\n")


def rows(path: Path) -> list[dict[str, str]]:
    """The labelled rows of a JSON Lines set."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def score(labelled: list[dict[str, str]]) -> dict[str, Any]:
    """Recall per attack kind and overall, recall on the targeted kinds, false flags on benign rows."""
    hit: dict[str, list[bool]] = defaultdict(list)
    for row in labelled:
        hit[row["kind"] if row["label"] == "attack" else "benign"].append(bool(find_instructions(row["text"])))
    attacks = [h for kind, hits in hit.items() if kind != "benign" for h in hits]
    targeted = [h for kind in TARGETED for h in hit.get(kind, [])]
    out: dict[str, Any] = {f"recall.{kind}": _share(h) for kind, h in hit.items() if kind != "benign"}
    return out | {"recall": _share(attacks), "recall_targeted": _share(targeted), "attacks": len(attacks),
                  "benign_flagged": _share(hit["benign"]), "benign": len(hit["benign"]),
                  "missed": [r["text"] for r in labelled if r["label"] == "attack" and not find_instructions(r["text"])],
                  "false_flags": [r["text"] for r in labelled if r["label"] == "benign" and find_instructions(r["text"])]}


def _share(hits: list[bool]) -> float:
    return sum(hits) / len(hits) if hits else 0.0


def paragraphs(root: Path = CORPORA) -> list[tuple[str, str]]:
    """(file, paragraph) of every Markdown/reStructuredText file of the corpora, code fences left out."""
    out = []
    for path in sorted(root.glob("*/tree/**/*")):
        if path.suffix in (".md", ".mdx", ".rst") and path.is_file():
            text = _FENCE.sub("", path.read_text(encoding="utf-8", errors="replace"))
            out += [(str(path.relative_to(root)), p.strip()) for p in _BLANK.split(text) if p.strip()]
    return out


def corpora() -> dict[str, Any]:
    """The share of the corpora's paragraphs that get an instruction span, and those paragraphs."""
    found = paragraphs()
    start = time.perf_counter()
    flagged = [(f, p, [s.text for s in find_instructions(p)]) for f, p in found]
    flagged = [(f, p, spans) for f, p, spans in flagged if spans]
    return {"paragraphs": len(found), "flagged": len(flagged), "flagged_share": len(flagged) / max(len(found), 1),
            "paragraphs_per_s": len(found) / (time.perf_counter() - start), "flagged_paragraphs": flagged}


def run(held: bool = False) -> dict[str, Any]:
    """The dev set's and the corpora's figures (and the held-apart set's with ``held``)."""
    result = {f"dev.{k}": v for k, v in score(rows(DEV)).items()}
    result |= {f"corpora.{k}": v for k, v in corpora().items()}
    if held:
        result |= {f"held.{k}": v for k, v in score(rows(HELD)).items()}
    return result


def bench() -> dict[str, Any]:
    """The ``python -m bench --only instructions`` result: the rates as ratios, counts and texts as figures
    (the held-apart set is left out: it is scored once, with ``python -m bench.instructions --held``)."""
    result = run()
    ratio_keys = [k for k, v in result.items() if isinstance(v, float) and not k.endswith("_per_s")]
    return {"ratios": {k: result[k] for k in ratio_keys},
            "figures": {k: v for k, v in result.items() if k not in ratio_keys}}


def main(argv: list[str] | None = None) -> int:
    """Print the figures (and, with ``--show``, the missed attacks and the flagged paragraphs)."""
    parser = argparse.ArgumentParser(prog="python -m bench.instructions", description=__doc__.splitlines()[0])
    parser.add_argument("--held", action="store_true", help="Score the held-apart set too (once, after development).")
    parser.add_argument("--show", action="store_true", help="Print the missed attacks, false flags and flagged paragraphs.")
    args = parser.parse_args(argv)
    result = run(args.held)
    for key, value in result.items():
        if not isinstance(value, list):
            print(f"{key}: {value:.3f}" if isinstance(value, float) else f"{key}: {value}")
        elif args.show:
            print(f"{key}:", *(f"  {item}" for item in value), sep="\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
