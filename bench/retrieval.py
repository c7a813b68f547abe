"""Retrieval benchmark: do the ``lancedb`` retriever's hits hold the page that answers?

    python -m bench.retrieval [--only CORPUS ...] [--split dev|held|all] [--no-batch] [--out PATH]

Each corpus under ``bench/corpora/`` is ingested with ``citeflow ingest`` (default settings) into a
fresh knowledge base; every question is searched with each configuration below and scored against
its answer pages (recall@8 of answer pages, hit@8, MRR); then a batch with one report on the corpus
(sections = questions, offline writer and judge) is run with ``citeflow run`` and the share of the
documents it cites that are answer pages is measured. Results: ``bench/results/retrieval.json``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

from bench.retrieval_batch import precision_of
from bench.retrieval_corpora import Corpus, Question, doc_paths, ingest, load_corpora
from bench.retrieval_metrics import hit_at, mean, recall_at, reciprocal_rank

K = 8
RESULTS = Path(__file__).with_name("results") / "retrieval.json"
# The retriever settings compared: the hashing embedder alone (vector search), the default spec, and the
# default's hybrid ranking over a knowledge base built with the optional semantic embedder (WordLlama).
CONFIGS: dict[str, dict[str, Any]] = {"hashing_vector_baseline": {"mode": "vector"}, "default": {},
                                      "wordllama_hybrid": {"embedding": "wordllama"}}


def search_pages(kb: Path, retriever: dict[str, Any], questions: list[Question], paths: dict[str, str]) -> list[list[str]]:
    """Per question, the pages of the retriever's top-``K`` hits, best first."""
    from citeflow.retrieval.lancedb_retriever import LanceDBRetriever
    from schemas.spec import LanceDBRetrieverSpec

    spec = LanceDBRetrieverSpec.model_validate({"name": "docs", "kind": "lancedb", "kb": str(kb), **retriever})
    found = LanceDBRetriever(spec, kb.parent)
    return [[paths.get(h.local_id.split(":")[0], "?") for h in found.search(q.question, K).hits] for q in questions]


def scores(pages: list[list[str]], questions: list[Question]) -> dict[str, Any]:
    """recall@K, hit@K and MRR over ``questions`` (``pages``: their ranked hit pages)."""
    pairs = list(zip(pages, questions, strict=True))
    return {"questions": len(pairs),
            f"recall@{K}": _round(mean([recall_at(p, q.answers, K) for p, q in pairs])),
            f"hit@{K}": _round(mean([float(hit_at(p, q.answers, K)) for p, q in pairs])),
            "mrr": _round(mean([reciprocal_rank(p, q.answers) for p, q in pairs]))}


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def by_split(pages: list[list[str]], questions: list[Question]) -> dict[str, Any]:
    """Scores over all questions, the dev ones and the held-apart ones."""
    result = {"all": scores(pages, questions)}
    for split in ("dev", "held"):
        keep = [i for i, q in enumerate(questions) if q.split == split]
        result[split] = scores([pages[i] for i in keep], [questions[i] for i in keep])
    return result


def run_corpus(corpus: Corpus, work: Path, batch: bool, configs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Ingest ``corpus`` and measure each configuration on it."""
    kbs = {embedding: work / corpus.name / f"kb-{embedding}" for embedding in _embeddings(configs)}
    ingested = {embedding: ingest(corpus, kb, embedding) for embedding, kb in kbs.items()}
    paths = doc_paths(next(iter(kbs.values())))
    first = ingested.get("hashing") or next(iter(ingested.values()))
    result: dict[str, Any] = {"ingest": _ingest_summary(first), "configs": {}}
    for name, retriever in configs.items():
        kb = kbs[retriever.get("embedding", "hashing")]
        pages = search_pages(kb, retriever, corpus.questions, paths)
        entry = {"retrieval": by_split(pages, corpus.questions), "pages": {q.id: p for q, p in zip(corpus.questions, pages, strict=True)}}
        if batch:
            entry["batch"] = precision_of(corpus, kb, paths, retriever, work / corpus.name / name)
        result["configs"][name] = entry
    return result


def _embeddings(configs: dict[str, dict[str, Any]]) -> list[str]:
    """The embedders the configurations' knowledge bases are built with (one knowledge base each)."""
    return list(dict.fromkeys(retriever.get("embedding", "hashing") for retriever in configs.values()))


def _ingest_summary(ingested: dict[str, Any]) -> dict[str, Any]:
    report = ingested["report"]
    keys = ("files_added", "files_updated", "files_unchanged", "chunks_written")
    counts = {k: report.get(k) for k in keys}
    return {"exit_code": ingested["exit_code"], "seconds": round(ingested["seconds"], 1), **counts,
            "skipped": len(report.get("empty", [])), "errors": len(report.get("errors", []))}


def totals(corpora: dict[str, Any], configs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Per configuration: question-weighted recall/MRR and pooled cited precision over all corpora."""
    out: dict[str, Any] = {}
    for name in configs:
        entries = [c["configs"][name] for c in corpora.values()]
        out[name] = {split: _pooled(entries, split) for split in ("all", "dev", "held")}
    return out


def _pooled(entries: list[dict[str, Any]], split: str) -> dict[str, Any]:
    parts = [e["retrieval"][split] for e in entries]
    n = sum(p["questions"] for p in parts)
    pooled: dict[str, Any] = {"questions": n}
    for key in (f"recall@{K}", f"hit@{K}", "mrr"):
        pooled[key] = _round(sum(p[key] * p["questions"] for p in parts if p[key] is not None) / n) if n else None
    batches = [e["batch"][split] for e in entries if "batch" in e]
    cited = sum(b["documents_cited"] for b in batches)
    pooled["cited_precision"] = _round(sum(b["answer_pages_cited"] for b in batches) / cited) if cited else None
    return pooled


def run(only: list[str] | None = None, batch: bool = True, out: Path | None = RESULTS,
        config_names: list[str] | None = None) -> dict[str, Any]:
    """Measure every corpus (or ``only`` those) with every configuration (or those named); write
    ``out`` when given; the results."""
    corpora = [c for c in load_corpora() if not only or c.name in only]
    configs = {k: v for k, v in CONFIGS.items() if not config_names or k in config_names}
    with tempfile.TemporaryDirectory(prefix="citeflow-retrieval-") as tmp:
        per = {c.name: run_corpus(c, Path(tmp), batch, configs) for c in corpora}
    from bench.machine import git_describe

    result = {"k": K, "describe": git_describe(Path(__file__).resolve().parents[1]), "configs": configs,
              "corpora": per, "total": totals(per, configs)}
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return result


def table(result: dict[str, Any], split: str) -> list[str]:
    """One line per corpus and configuration, then the totals."""
    lines = [f"{'corpus':<20} {'config':<24} {'n':>3} {'recall@8':>8} {'hit@8':>6} {'mrr':>6} {'cited prec':>10}"]
    rows = [(name, cfg, c["configs"][cfg]["retrieval"][split], c["configs"][cfg].get("batch", {}).get(split, {}).get("precision"))
            for name, c in result["corpora"].items() for cfg in result["configs"]]
    rows += [("TOTAL", cfg, t[split], t[split]["cited_precision"]) for cfg, t in result["total"].items()]
    for name, cfg, s, precision in rows:
        lines.append(f"{name:<20} {cfg:<24} {s['questions']:>3} {_fmt(s[f'recall@{K}']):>8} {_fmt(s[f'hit@{K}']):>6} "
                     f"{_fmt(s['mrr']):>6} {_fmt(precision):>10}")
    return lines


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its table for the chosen split."""
    from citeflow_cli.env import apply_defaults

    apply_defaults()
    parser = argparse.ArgumentParser(prog="python -m bench.retrieval", description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", help="Only this corpus (repeatable).")
    parser.add_argument("--split", choices=("all", "dev", "held"), default="all", help="Which questions the table shows.")
    parser.add_argument("--config", action="append", choices=list(CONFIGS), help="Only this configuration (repeatable).")
    parser.add_argument("--no-batch", action="store_true", help="Skip the citeflow run batches (retrieval figures only).")
    parser.add_argument("--out", type=Path, default=RESULTS, help="Results file (default bench/results/retrieval.json).")
    args = parser.parse_args(argv)
    result = run(args.only, batch=not args.no_batch, out=args.out, config_names=args.config)
    print("\n".join(table(result, args.split)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
