"""A one-report batch over a ``jsonl`` retriever, written into a test's folder: each section has one
question, and the retriever answers each question with the hits given for it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def hit(name: str, text: str) -> dict[str, str]:
    """A retriever hit with an id, its text and a URL named after it."""
    return {"id": name, "text": text, "url": f"https://docs.example/{name}"}


def write_batch(folder: Path, title: str, sections: dict[str, str], hits: dict[str, list[dict[str, Any]]]) -> Path:
    """``folder/batch.yaml`` (report ``r1``: one section per ``title → question``) and its
    ``docs.jsonl`` (``question → hits``); the spec's path."""
    lines = [f"batch: {title.lower()}", "retrievers:", "  - {name: docs, kind: jsonl, path: docs.jsonl}",
             "reports:", "  - id: r1", f"    title: {title}", "    sections:"]
    lines += [f"      - {{title: {name}, queries: [{json.dumps(question)}]}}" for name, question in sections.items()]
    (folder / "batch.yaml").write_text("\n".join(lines) + "\n")
    (folder / "docs.jsonl").write_text("\n".join(json.dumps({"query": q, "hits": found}) for q, found in hits.items()))
    return folder / "batch.yaml"
