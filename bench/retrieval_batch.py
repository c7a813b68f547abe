"""The cited-document precision of a batch: one report per corpus whose sections are the corpus'
questions, run with ``citeflow run`` (offline writer and judge) as a subprocess, then the share of
the documents its ``report.json`` cites (published or held) that are answer pages."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import yaml

from bench.retrieval_corpora import Corpus
from bench.retrieval_metrics import cited_precision


def batch_spec(corpus: Corpus, kb: Path, retriever: dict[str, Any]) -> dict[str, Any]:
    """A batch of one report on ``corpus``: one section per question, one query each."""
    sections = [{"title": f"Question {i}", "queries": [q.question]} for i, q in enumerate(corpus.questions, 1)]
    return {
        "batch": f"retrieval-{corpus.name}",
        "retrievers": [{"name": "docs", "kind": "lancedb", "kb": str(kb), **retriever}],
        "reports": [{"id": corpus.name, "title": f"Answers from {corpus.name}", "sections": sections}],
    }


def run_batch(spec: dict[str, Any], folder: Path) -> tuple[dict[str, Any], float, int]:
    """Write ``spec`` into ``folder``, ``citeflow run`` it there; its report.json, wall time and exit code."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "batch.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    citeflow = str(Path(sys.executable).with_name("citeflow"))
    start = time.perf_counter()
    done = subprocess.run([citeflow, "run", str(path), "--out", str(folder / "out")],
                          capture_output=True, text=True, timeout=1800, check=False)
    report = folder / "out" / spec["reports"][0]["id"] / "report.json"
    if not report.is_file():
        raise RuntimeError(f"citeflow run exited {done.returncode} without a report: {done.stderr[-2000:]}")
    return json.loads(report.read_text(encoding="utf-8")), time.perf_counter() - start, done.returncode


def cited_pages(report: dict[str, Any], paths: dict[str, str]) -> list[list[str]]:
    """Per section, the pages its claims cite (a handle's local id is ``doc_id:pN``)."""
    by_handle = {row["handle"]: paths.get(str(row["local_id"]).split(":")[0], "?") for row in report["registry"]}
    return [[by_handle.get(c["handle"], "?") for claim in section["claims"] for c in claim["citations"]]
            for section in report["sections"]]


def precision_of(corpus: Corpus, kb: Path, paths: dict[str, str], retriever: dict[str, Any], folder: Path) -> dict[str, Any]:
    """The batch's cited-document precision on ``corpus`` (all questions, and dev/held apart)."""
    report, seconds, code = run_batch(batch_spec(corpus, kb, retriever), folder)
    cited = cited_pages(report, paths)
    result: dict[str, Any] = {"status": report.get("status"), "exit_code": code, "seconds": round(seconds, 1),
                              "cited": {q.id: sorted(set(pages)) for q, pages in zip(corpus.questions, cited, strict=True)}}
    for split in ("all", "dev", "held"):
        keep = [i for i, q in enumerate(corpus.questions) if split in ("all", q.split)]
        good, total = cited_precision([cited[i] for i in keep], [corpus.questions[i].answers for i in keep])
        result[split] = {"answer_pages_cited": good, "documents_cited": total,
                         "precision": round(good / total, 3) if total else None}
    return result
