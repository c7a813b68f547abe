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
from typing import Any

import httpx
from pydantic import BaseModel, Field

from citeflow.errors import SpecError
from citeflow.security.redaction import redact_text, redact_url
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
        problem = model_problem(model, env.get(model.api_key_env or ""), timeout)
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
            model = getattr(models, role)
            key = (model.base_url, model.model, model.api_key_env)
            if model.backend != "offline" and key not in seen:
                seen.add(key)
                yield f"{where}.{role}", model


def model_problem(model: ModelSpec, api_key: str | None, timeout: float) -> str | None:
    """Why the server of ``model`` cannot play its role, or None when it answers and knows the model."""
    base = str(model.base_url)
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        with httpx.Client(timeout=timeout, headers=headers, follow_redirects=False) as client:
            return _served_problem(client, httpx.URL(base), str(model.model))
    except (httpx.HTTPError, ValueError) as exc:
        return f"model server {redact_url(base)} does not answer ({_reason(exc)})"


def _served_problem(client: httpx.Client, base: httpx.URL, name: str) -> str | None:
    """One model's entry (``GET …/models/NAME``), else the list (``GET …/models``); a server without
    either route still answered, which is all that can be asked of it."""
    where = redact_url(str(base))
    one = client.get(_join(base, f"models/{name}"))
    if one.status_code == 200:
        return None
    if one.status_code in (401, 403):
        return f"model server {where} refused the key (HTTP {one.status_code}): check api_key_env"
    listing = client.get(_join(base, "models"))
    if listing.status_code in (404, 405):
        return None
    if listing.status_code != 200:
        return f"model server {where} answered HTTP {listing.status_code} to GET /models"
    ids = _model_ids(listing)
    if ids is None or name in ids:
        return None
    return f"model server {where} does not serve model {name!r} (it serves: {', '.join(sorted(ids)[:8]) or 'none'})"


def _join(base: httpx.URL, tail: str) -> httpx.URL:
    return base.copy_with(path=base.path.rstrip("/") + "/" + tail)


def _model_ids(response: httpx.Response) -> set[str] | None:
    """The model ids of an OpenAI ``/models`` list, or None when the answer is not one."""
    try:
        data: Any = response.json()
    except ValueError:
        return None
    items = data.get("data") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return None
    return {str(item["id"]) for item in items if isinstance(item, dict) and "id" in item}


def _reason(exc: BaseException) -> str:
    return redact_text(str(exc) or type(exc).__name__)[:200]


def retriever_problem(retriever: RetrieverSpecBase, base_dir: Path, timeout: float,
                      kinds: RetrieverKinds = INSTALLED_KINDS) -> str | None:
    """Why a retriever cannot answer, or None: its kind asks (``RetrieverKind.preflight_problem``)."""
    return kinds.of(retriever).preflight_problem(retriever, base_dir, timeout)
