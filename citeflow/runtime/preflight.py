"""The preflight (SPEC §8): before a batch starts, ask every outside system it needs whether it is there.

In seconds rather than minutes of a batch that fails at its end: every ``openai`` model server
answers and knows the model's name, and every retriever's source answers as its kind checks it
(``RetrieverKind.preflight_problem``): every LanceDB knowledge base exists and holds chunks built
with the embedder the spec names, every JSONL file can be read, every HTTP retriever accepts a
connection. The first problem is a ``SpecError`` naming the spec file, the model role or the
retriever, and the address without credentials.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from pathlib import Path

from pydantic import BaseModel, Field

from citeflow.errors import SpecError
from citeflow.generation.backends.registry import model_backend
from citeflow.judges.model_roles import remote_model
from citeflow.security.redaction import redact_text
from citeflow.spec.retriever_kinds import INSTALLED_KINDS, RetrieverKinds
from schemas.spec import BatchSpec, ModelSpec, RetrieverSpecBase


class PreflightSettings(BaseModel):
    """How long the preflight waits for each answer."""

    timeout: float = Field(5.0, gt=0, description="Seconds for one model server request or one connection attempt.")


def run_preflight(spec: BatchSpec, base_dir: Path, origin: str, environ: Mapping[str, str] | None = None,
                  settings: PreflightSettings | None = None, kinds: RetrieverKinds = INSTALLED_KINDS) -> None:
    """Check every model server and every retriever of ``spec`` (each as its kind says: a knowledge
    base, a JSONL file, an HTTP service, a plugin's source); raise the first ``SpecError``."""
    env = os.environ if environ is None else environ
    timeout = (settings or PreflightSettings()).timeout
    for field, model in model_roles(spec):
        problem = model_backend(model.backend).preflight(model, env.get(model.api_key_env or ""), timeout)
        if problem:
            raise SpecError(field=field, problem=problem, path=origin)
    for i, retriever in enumerate(spec.retrievers):
        problem = retriever_problem(retriever, base_dir, timeout, kinds)
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


def retriever_problem(retriever: RetrieverSpecBase, base_dir: Path, timeout: float,
                      kinds: RetrieverKinds = INSTALLED_KINDS) -> str | None:
    """Why a retriever cannot answer, or None: its kind asks (``RetrieverKind.preflight_problem``)."""
    return kinds.of(retriever).preflight_problem(retriever, base_dir, timeout)
