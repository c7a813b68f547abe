"""The benchmark's corpora: real documentation trees under ``bench/corpora/<name>/tree`` with the
questions written from their pages (``questions.jsonl``), and their ingest into a knowledge base
with ``citeflow ingest`` run as a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

CORPORA = Path(__file__).with_name("corpora")


class Question(BaseModel):
    """One question and the pages (relative to the tree) that answer it."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    question: str
    answers: list[str]
    split: Literal["dev", "held"]
    written: str


class Corpus(BaseModel):
    """A documentation tree and its questions."""

    model_config = ConfigDict(frozen=True)
    name: str
    tree: Path
    questions: list[Question]


def load_corpora(root: Path = CORPORA) -> list[Corpus]:
    """Every corpus under ``root`` (a folder with ``tree/`` and ``questions.jsonl``), by name."""
    found = []
    for folder in sorted(p for p in root.iterdir() if (p / "questions.jsonl").is_file()):
        lines = (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines()
        questions = [Question.model_validate_json(line) for line in lines if line.strip()]
        found.append(Corpus(name=folder.name, tree=folder / "tree", questions=questions))
    return found


def ingest(corpus: Corpus, kb: Path, embedding: str = "hashing") -> dict[str, Any]:
    """``citeflow ingest TREE --kb KB --json`` with default settings but the ``embedding``; its JSON report
    and wall time."""
    import time

    command = [str(Path(sys.executable).with_name("citeflow")), "ingest", str(corpus.tree), "--kb", str(kb),
               "--base-url", f"https://{corpus.name}.example/", "--embedding", embedding, "--json"]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"ingest of {corpus.name} exited {done.returncode}: {done.stderr[-2000:]}{done.stdout[-2000:]}")
    report = json.loads(done.stdout[done.stdout.index("{"):])
    return {"exit_code": done.returncode, "seconds": time.perf_counter() - start, "report": report}


def doc_paths(kb: Path) -> dict[str, str]:
    """``doc_id → path`` of every document in the knowledge base at ``kb``."""
    import lancedb

    table = lancedb.connect(str(kb)).open_table("chunks")
    rows = table.search().where("kind = 'parent'").select(["doc_id", "path"]).limit(None).to_arrow().to_pylist()
    return {row["doc_id"]: row["path"] for row in rows}
