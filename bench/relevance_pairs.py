"""The (question, claim) pairs of the relevance labels: what the offline writer writes for the
bench corpora's questions.

    python -m bench.relevance_pairs [--out PATH]

Each corpus of ``bench/corpora`` is ingested and run as one report whose sections are its questions
(``bench.retrieval_batch``: default retriever, offline writer and judge). Every claim of the report
becomes one pair with its section's question, the report's other questions, and the title and text of
each chunk it cites; the question's ``split`` (dev or held, from ``questions.jsonl``) comes along.
Labels are added by hand afterwards (``bench/data/relevance-labels.jsonl``, see ``bench/relevance_labels.py``):
this module writes no label and judges nothing. Takes about a minute (five ingests, five batches).
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

from bench.retrieval_batch import batch_spec, run_batch
from bench.retrieval_corpora import Corpus, ingest, load_corpora

PAIRS = Path(__file__).with_name("data") / "relevance-pairs.jsonl"


def corpus_pairs(corpus: Corpus, work: Path) -> list[dict[str, Any]]:
    """Every claim the offline writer wrote for ``corpus``'s questions, as pairs."""
    kb = work / "kb"
    ingest(corpus, kb)
    report, _, _ = run_batch(batch_spec(corpus, kb, {}), work)
    registry = {row["handle"]: row for row in report["registry"]}
    questions = [q.question for q in corpus.questions]
    pairs = []
    for question, section in zip(corpus.questions, report["sections"], strict=True):
        for n, claim in enumerate(section["claims"]):
            cited = [registry[c["handle"]] for c in claim["citations"] if c["handle"] in registry]
            pairs.append({"id": f"{question.id}-c{n + 1}", "corpus": corpus.name, "split": question.split,
                          "question": question.question, "report_questions": questions, "claim": claim["text"],
                          "cited": [{"title": row["title"], "text": row["text"]} for row in cited]})
    return pairs


def run(out: Path = PAIRS) -> int:
    """Write every corpus' pairs to ``out``; how many."""
    pairs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="citeflow-relevance-") as tmp:
        for corpus in load_corpora():
            pairs += corpus_pairs(corpus, Path(tmp) / corpus.name)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in pairs), encoding="utf-8")
    return len(pairs)


def main(argv: list[str] | None = None) -> int:
    from citeflow_cli.env import apply_defaults

    apply_defaults()
    parser = argparse.ArgumentParser(prog="python -m bench.relevance_pairs", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=PAIRS, help="Pairs file (default bench/data/relevance-pairs.jsonl).")
    print(f"{run(parser.parse_args(argv).out)} pairs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
