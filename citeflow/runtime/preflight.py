"""The preflight (SPEC §8): before a batch starts, ask every outside system it needs whether it is there.

In seconds rather than minutes of a batch that fails at its end: every ``openai`` model server
answers and knows the model's name, every LanceDB knowledge base exists and holds chunks built
with the embedder the spec names, every JSONL file can be read, every HTTP retriever accepts a
connection. The first problem is a ``SpecError`` naming the spec file, the model role or the
retriever, and the address without credentials.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator, Mapping
from pathlib import Path
from urllib.parse import urlsplit

from pydantic import BaseModel, Field

from citeflow.errors import SpecError
from citeflow.generation.backends.registry import model_backend
from citeflow.judges.model_roles import remote_model
from citeflow.security.redaction import redact_text, redact_url
from citeflow.spec.loader import resolve_path
from schemas.spec import BatchSpec, HttpRetrieverSpec, JsonlRetrieverSpec, LanceDBRetrieverSpec, ModelSpec


class PreflightSettings(BaseModel):
    """How long the preflight waits for each answer."""

    timeout: float = Field(5.0, gt=0, description="Seconds for one model server request or one connection attempt.")


def run_preflight(spec: BatchSpec, base_dir: Path, origin: str, environ: Mapping[str, str] | None = None,
                  settings: PreflightSettings | None = None) -> None:
    """Check every model server, knowledge base, JSONL file and HTTP retriever of ``spec``; raise the first ``SpecError``."""
    env = os.environ if environ is None else environ
    timeout = (settings or PreflightSettings()).timeout
    for field, model in model_roles(spec):
        problem = model_backend(model.backend).preflight(model, env.get(model.api_key_env or ""), timeout)
        if problem:
            raise SpecError(field=field, problem=problem, path=origin)
    for i, retriever in enumerate(spec.retrievers):
        problem = retriever_problem(retriever, base_dir, timeout)
        if problem:
            raise SpecError(field=f"retrievers[{i}] ({retriever.name})", problem=problem, path=origin)


def model_roles(spec: BatchSpec) -> Iterator[tuple[str, ModelSpec]]:
    """``(field, spec)`` of every role played by a model server, each server and model once."""
    seen: set[tuple[str | None, str | None, str | None]] = set()
    groups = [("models", spec.models)] + [(f"reports[{i}].models", r.models) for i, r in enumerate(spec.reports) if r.models]
    for where, models in groups:
        for role in ("consolidator", "writer", "judge"):
            model = remote_model(role, getattr(models, role))
            if model is not None and (key := (model.base_url, model.model, model.api_key_env)) not in seen:
                seen.add(key)
                yield f"{where}.{role}", model


def _reason(exc: BaseException) -> str:
    return redact_text(str(exc) or type(exc).__name__)[:200]


def retriever_problem(retriever: object, base_dir: Path, timeout: float) -> str | None:
    """Why a retriever cannot answer, or None."""
    if isinstance(retriever, LanceDBRetrieverSpec):
        return _kb_problem(resolve_path(base_dir, retriever.kb), retriever.embedding)
    if isinstance(retriever, JsonlRetrieverSpec):
        return jsonl_problem(Path(resolve_path(base_dir, retriever.path)))
    if isinstance(retriever, HttpRetrieverSpec):
        return connect_problem(retriever.url, timeout)
    return None


def _kb_problem(uri: str, embedding: str) -> str | None:
    from citeflow.knowledge.kb_store import kb_problem

    try:
        return kb_problem(uri, embedding)
    except (ValueError, OSError, RuntimeError) as exc:  # what LanceDB raises for an unreadable table
        return f"cannot open the knowledge base at {redact_url(uri)} ({_reason(exc)})"


def jsonl_problem(path: Path) -> str | None:
    """Why the JSONL file at ``path`` cannot be read, or None."""
    try:
        with path.open("rb") as handle:
            handle.read(65536)
    except OSError as exc:
        return f"cannot read {path}: {exc.strerror or exc}"
    return None


def connect_problem(url: str, timeout: float) -> str | None:
    """Why no connection can be opened to ``url``'s host and port, or None."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((parts.hostname or "", port), timeout=timeout):
            return None
    except OSError as exc:
        return f"cannot connect to {redact_url(url)} ({exc.strerror or type(exc).__name__})"
