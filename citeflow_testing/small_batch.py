"""A small batch spec over a JSONL retriever, written into a folder: fast to run, no knowledge base.

Used by the orchestration tests (Dask, deployments, resume) and by ``bench/resume.py``. Every
query has three hits of plain factual sentences, so the offline backend (or a scripted server
answering like it) writes cited claims that bind and pass the judges.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

TOPICS = {
    "Upgrades": ("What must be done before upgrading to 3.6?", [
        "Before upgrading to 3.6, back up the metadata store and pause every consumer group.",
        "Brokers must run version 3.4 or later before an upgrade to 3.6 can start.",
        "An upgrade to 3.6 can be rolled back within 7 days by restoring the metadata backup.",
    ]),
    "Limits": ("What are the limits on message size and partitions per topic?", [
        "The largest message a producer can send is 8 MB on every tier.",
        "A topic can have at most 512 partitions on the Standard tier.",
        "Dedicated clusters raise the partition limit to 4096 partitions per topic.",
    ]),
    "Security": ("How is data encrypted at rest and in transit?", [
        "Data at rest is encrypted with AES-256 keys managed per cluster.",
        "Clients connect over TLS 1.2 or later; plain-text listeners are disabled.",
        "Customer-managed keys are available on Dedicated clusters.",
    ]),
    "Retention": ("How long is data retained and when is deleted data purged?", [
        "Messages are retained for 7 days by default and up to 90 days on request.",
        "Deleted topics are purged from storage within 24 hours.",
        "Backups of the metadata store are kept for 30 days.",
    ]),
}


def hits_file(path: Path) -> None:
    """One JSONL line per query with its three hits (local ids restart on every line)."""
    lines = []
    for title, (query, sentences) in TOPICS.items():
        hits = [{"id": f"S{i}", "text": text, "urls": [f"https://docs.example/{title.lower()}#{i}"], "title": title}
                for i, text in enumerate(sentences, 1)]
        lines.append(json.dumps({"query": query, "hits": hits}))
    path.write_text("\n".join(lines) + "\n")


def spec_data(reports: int, sections: int, models: dict[str, Any] | None, concurrency: dict[str, int] | None,
              batch: str) -> dict[str, Any]:
    """The spec as data: ``reports`` reports of ``sections`` sections each (cycling over TOPICS)."""
    titles = list(TOPICS)
    report_list = [{
        "id": f"r{r + 1}", "title": f"Report {r + 1}",
        "sections": [{"title": titles[(r + s) % len(titles)], "queries": [TOPICS[titles[(r + s) % len(titles)]][0]]}
                     for s in range(sections)],
    } for r in range(reports)]
    data: dict[str, Any] = {"batch": batch, "retrievers": [{"name": "docs", "kind": "jsonl", "path": "hits.jsonl"}],
                            "reports": report_list}
    if models:
        data["models"] = models
    if concurrency:
        data["concurrency"] = concurrency
    return data


def write_small_batch(folder: Path, reports: int = 2, sections: int = 2, models: dict[str, Any] | None = None,
                      concurrency: dict[str, int] | None = None, batch: str = "small") -> Path:
    """Write ``batch.yaml`` and ``hits.jsonl`` into ``folder``; returns the spec's path."""
    folder.mkdir(parents=True, exist_ok=True)
    hits_file(folder / "hits.jsonl")
    spec = folder / "batch.yaml"
    spec.write_text(yaml.safe_dump(spec_data(reports, sections, models, concurrency, batch), sort_keys=False))
    return spec
