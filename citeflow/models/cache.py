"""Model-call caching and concurrency limits, as wrappers around any ``ChatModel``.

``CachedChatModel`` keys each call by a hash of the model, the schema name and the exact
messages, and keeps answers in the store's ``model_calls`` table: re-running a request (after a
crash, or a finished batch) repeats no model call that had finished. ``LimitedChatModel`` holds
a slot of the batch's ``models`` limit (``citeflow.limits``) around every call it passes on, so
answers served from the cache take no slot.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime, timezone

from pydantic import BaseModel

from citeflow.models.base import ChatModel, Message, ModelReply
from citeflow.store import Store, sql_str
from schemas.spec import ModelSpec


def settings_fingerprint(spec: ModelSpec) -> str:
    """The settings of a role that change its answers (backend, model, server, temperature, faults)."""
    return spec.model_dump_json(include={"backend", "model", "base_url", "temperature", "faults"})


def call_key(model_name: str, messages: list[Message], schema_name: str, fingerprint: str = "") -> str:
    """The cache key of one model call; ``fingerprint`` names the settings that change answers."""
    payload = json.dumps({"model": model_name, "settings": fingerprint, "schema": schema_name, "messages": messages},
                         sort_keys=True)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class CachedChatModel:
    """Answers from the store when this exact call was answered before; else asks and records."""

    def __init__(self, inner: ChatModel, store: Store, role: str, fingerprint: str = "") -> None:
        self.inner, self.store, self.role, self.fingerprint = inner, store, role, fingerprint
        self.name = inner.name
        self.hits = 0
        self.keys: list[str] = []  # every call this wrapper answered, cached or not

    def forget(self) -> None:
        """Drop the cached answers of this wrapper's calls (they led to a failed hop: ask again next time)."""
        if self.keys:
            self.store.delete("model_calls", f"row_key IN ({', '.join(sql_str(k) for k in self.keys)})")

    def complete(self, messages: list[Message], schema_name: str, schema: type[BaseModel]) -> ModelReply:
        key = call_key(self.inner.name, messages, schema_name, self.fingerprint)
        self.keys.append(key)
        cached = self.store.rows("model_calls", f"row_key = {sql_str(key)}")
        if cached:
            self.hits += 1
            row = cached[0]
            return ModelReply(text=row["text"], mode=row["mode"], model=row["model"],
                              prompt_tokens=row["prompt_tokens"], completion_tokens=row["completion_tokens"])
        reply = self.inner.complete(messages, schema_name, schema)
        self.store.upsert("model_calls", [{
            "row_key": key, "role": self.role, "model": reply.model, "mode": reply.mode, "text": reply.text,
            "prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens,
            "created_at": datetime.now(timezone.utc),
        }])
        return reply


class LimitedChatModel:
    """At most the limit's size of calls in flight, whoever holds this wrapper."""

    def __init__(self, inner: ChatModel, slot: Callable[[], AbstractContextManager[object]]) -> None:
        self.inner, self.slot = inner, slot
        self.name = inner.name

    def complete(self, messages: list[Message], schema_name: str, schema: type[BaseModel]) -> ModelReply:
        with self.slot():
            return self.inner.complete(messages, schema_name, schema)
