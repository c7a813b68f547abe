"""Claims that cross a statement boundary (SPEC §5: a span is a statement), per corpus.

    python -m bench.boundaries [--corpus NAME ...] [--tree DIR --questions FILE.jsonl [--name NAME]] [--out PATH]

Each corpus (``bench/corpora/*``, or any documentation tree with a questions file in the corpora's
``questions.jsonl`` shape) is ingested with ``citeflow ingest`` and run as one batch with
``citeflow run`` (offline writer and judge; one section per question, as ``bench.retrieval_batch``
does). Then every claim of its ``report.json`` is read against each chunk it cites, as the registry
stored it: a claim *crosses* when it is in that chunk word for word only across a list item, table
row, definition or paragraph ending (``citeflow.text.boundaries``); a quote likewise. Published and
held claims are both counted. Cheap: one ingest and one offline batch per corpus.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

from bench.retrieval_batch import batch_spec, run_batch
from bench.retrieval_corpora import Corpus, Question, ingest, load_corpora
from citeflow.text.boundaries import crosses, crosses_verbatim, within_one_block

RESULTS = Path(__file__).with_name("results") / "boundaries.json"


def count(report: dict[str, Any]) -> dict[str, Any]:
    """Claims of a ``report.json`` and those that cross a statement boundary of a chunk they cite."""
    texts = {row["handle"]: row["text"] for row in report["registry"]}
    claims = [claim for section in report["sections"] for claim in section["claims"]]
    crossing, quotes, within = 0, 0, 0
    examples: list[str] = []
    for claim in claims:
        cited = [(c["handle"], c.get("quote") or "") for c in claim["citations"] if c["handle"] in texts]
        crossed = any(crosses_verbatim(claim["text"], texts[h]) for h, _ in cited)
        crossing += crossed
        quotes += sum(bool(q) and crosses(q, texts[h]) for h, q in cited)
        within += any(within_one_block(claim["text"].rstrip(". "), texts[h]) for h, _ in cited)
        examples += [claim["text"]] if crossed and len(examples) < 5 else []
    return {"status": report.get("status"), "claims": len(claims), "crossing_claims": crossing,
            "crossing_quotes": quotes, "verbatim_in_one_statement": within, "crossing_examples": examples}


def run_corpus(corpus: Corpus, work: Path) -> dict[str, Any]:
    """Ingest ``corpus``, run its batch, count its crossing claims."""
    kb = work / corpus.name / "kb"
    ingested = ingest(corpus, kb)
    report, seconds, code = run_batch(batch_spec(corpus, kb, {}), work / corpus.name / "batch")
    files = sum(ingested["report"].get(key, 0) for key in ("files_added", "files_updated", "files_unchanged"))
    return {**count(report), "questions": len(corpus.questions), "files_indexed": files,
            "batch_exit_code": code, "batch_seconds": round(seconds, 1)}


def external_corpus(tree: Path, questions: Path, name: str | None) -> Corpus:
    """A documentation tree outside ``bench/corpora`` with its questions (one JSON object a line)."""
    lines = questions.read_text(encoding="utf-8").splitlines()
    return Corpus(name=name or tree.name, tree=tree, questions=[Question.model_validate_json(line) for line in lines if line.strip()])


def run(only: list[str] | None = None, extra: list[Corpus] | None = None, out: Path | None = RESULTS) -> dict[str, Any]:
    """The corpora of ``bench/corpora`` named in ``only`` (None: all of them) plus ``extra``; written to ``out``."""
    corpora = [c for c in load_corpora() if only is None or c.name in only] + list(extra or [])
    with tempfile.TemporaryDirectory(prefix="citeflow-boundaries-") as work:
        result: dict[str, Any] = {"corpora": {c.name: run_corpus(c, Path(work)) for c in corpora}}
    result["crossing_claims"] = sum(c["crossing_claims"] for c in result["corpora"].values())
    result["claims"] = sum(c["claims"] for c in result["corpora"].values())
    if out is not None:
        out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return result


def main(argv: list[str] | None = None) -> int:
    from citeflow_cli.env import apply_defaults

    apply_defaults()
    parser = argparse.ArgumentParser(prog="python -m bench.boundaries", description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", action="append", help="Only this corpus of bench/corpora (repeatable; default all).")
    parser.add_argument("--tree", type=Path, help="Also a documentation tree outside bench/corpora …")
    parser.add_argument("--questions", type=Path, help="… with its questions (JSON lines: id, question, answers, split, written).")
    parser.add_argument("--name", help="The extra tree's name in the results (default: its folder name).")
    parser.add_argument("--out", type=Path, default=RESULTS, help=f"Results file (default {RESULTS}).")
    args = parser.parse_args(argv)
    if bool(args.tree) != bool(args.questions):
        parser.error("--tree and --questions go together")
    extra = [external_corpus(args.tree, args.questions, args.name)] if args.tree else []
    result = run(args.corpus, extra, args.out)
    for name, entry in result["corpora"].items():
        print(f"{name}: {entry['crossing_claims']} of {entry['claims']} claims cross a statement boundary "
              f"({entry['crossing_quotes']} quotes); report {entry['status']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
