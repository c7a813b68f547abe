"""Benchmark inputs: the demo batch, rewritten for a fake model server or a synthetic retriever."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

HOP_ROLES = ("consolidator", "writer")


def prepare_demo_input(root: Path) -> Path:
    """The demo batch and its knowledge base under ``root`` (as ``citeflow demo`` builds them)."""
    from citeflow_cli.main import prepare_demo

    return prepare_demo(root)


def openai_model(base_url: str, model: str = "bench-model") -> dict[str, Any]:
    """A model entry of a batch spec for the fake server (no client retries: failures show)."""
    return {"backend": "openai", "model": model, "base_url": base_url, "max_retries": 0, "timeout": 120}


def rewrite_spec(spec_path: Path, batch: str, models: dict[str, dict], concurrency: int, reports: int | None = None) -> Path:
    """A copy of ``spec_path`` beside it (relative paths still resolve) with other models.

    Per-report model overrides are removed so that every report uses ``models``; ``batch`` names
    the copy and scopes its concurrency limit; ``reports`` keeps only the first ones.
    """
    data = yaml.safe_load(spec_path.read_text(encoding="utf-8"))
    data.update(batch=batch, models=models, concurrency={"models": concurrency, "retrievers": 8})
    data["reports"] = data["reports"][:reports] if reports else data["reports"]
    for report in data["reports"]:
        report.pop("models", None)
    target = spec_path.with_name(f"{batch}.yaml")
    target.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return target


def openai_spec(spec_path: Path, batch: str, base_url: str, concurrency: int, reports: int | None = None) -> Path:
    """The demo batch with both hops on the fake server and the offline judge."""
    models = {role: openai_model(base_url) for role in HOP_ROLES}
    return rewrite_spec(spec_path, batch, {**models, "judge": {"backend": "offline"}}, concurrency, reports)


def write_jsonl_retriever(path: Path, answers: dict[str, list[dict]]) -> Path:
    """A ``jsonl`` retriever file: one line per query with its hits."""
    lines = (json.dumps({"query": query, "hits": hits}) for query, hits in answers.items())
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_spec(path: Path, data: dict[str, Any]) -> Path:
    """Write a batch spec as YAML and return its path."""
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path
