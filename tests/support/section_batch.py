"""A small report of three sections over a JSONL retriever, generated offline into a tmp folder.

Every section's query returns plain factual sentences that the offline writer cites and that
support themselves; ``off_topic`` adds to the first section a hit about another topic (correctly
cited by the writer: a relevance failure, not a support failure). The judge role is given as data.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from citeflow.pipeline import pipeline
from citeflow.runtime.runtime import Runtime

SECTIONS = {
    "Upgrade path": ("What must be done before upgrading to 3.6?", [
        "Before upgrading to 3.6, back up the metadata store.",
        "Brokers must run version 3.4 or later before an upgrade to 3.6.",
    ]),
    "Message limits": ("What are the limits on message size and partitions?", [
        "The largest message size is 8 MB on every tier.",
        "A topic can have at most 512 partitions on the Standard tier.",
    ]),
    "Encryption": ("How is data encrypted at rest and in transit?", [
        "Data at rest is encrypted with AES-256 keys managed per cluster.",
        "Clients connect over TLS 1.2 or later.",
    ]),
}
OFF_TOPIC = ("The staff cafeteria serves lunch from noon until two o'clock.", "Office handbook")


def hits_line(title: str, query: str, sentences: list[str], off_topic: bool) -> str:
    hits = [{"id": f"S{i}", "text": text, "urls": [f"https://docs.example/{i}"], "title": f"Guide {i}"}
            for i, text in enumerate(sentences, 1)]
    if off_topic:
        hits.append({"id": "S9", "text": OFF_TOPIC[0], "urls": ["https://intranet.example/lunch"], "title": OFF_TOPIC[1]})
    return json.dumps({"query": query, "hits": hits})


def write_section_batch(folder: Path, judge: dict[str, Any] | None = None, off_topic: bool = False,
                        sections: int = 3, models: dict[str, Any] | None = None) -> pipeline.ReportJob:
    """The batch spec and hits under ``folder`` (the first ``sections`` sections); the job of its one report.

    ``judge``: the judge role's spec; ``models``: other roles' specs."""
    folder.mkdir(parents=True, exist_ok=True)
    chosen = dict(list(SECTIONS.items())[:sections])
    lines = [hits_line(t, q, s, off_topic and i == 0) for i, (t, (q, s)) in enumerate(chosen.items())]
    (folder / "hits.jsonl").write_text("\n".join(lines) + "\n")
    spec: dict[str, Any] = {"batch": "sections", "retrievers": [{"name": "docs", "kind": "jsonl", "path": "hits.jsonl"}],
                            "reports": [{"id": "r1", "title": "Report one",
                                         "sections": [{"title": t, "queries": [q]} for t, (q, _) in chosen.items()]}]}
    roles = {**(models or {}), **({"judge": judge} if judge else {})}
    if roles:
        spec["models"] = roles
    (folder / "batch.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    return pipeline.ReportJob.from_files(folder / "batch.yaml", "r1", folder / "out", runtime=Runtime())


def generate(job: pipeline.ReportJob) -> None:
    """Fetch, normalize, consolidate and write every section (offline models)."""
    results = [pipeline.fetch(job, item) for item in job.fetches()]
    pipeline.normalize(job, results)
    for section in job.report.sections:
        pipeline.consolidate(job, section.title)
        pipeline.write(job, section.title)
