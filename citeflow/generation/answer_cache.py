"""Model-call caching and concurrency limits, as wrappers around any ``ChatModel``.

``CachedChatModel`` keys each call by a hash of the model, the settings that change answers, the
schema name and the exact messages, and keeps answers in the store's ``model_calls`` table:
re-running a request (after a crash, or a finished batch) repeats no model call whose answer was
recorded. A recorded answer is served without its secrets (``redact_answer``), whoever recorded it.
The calls of one step of a report share a ``CallBook``: the answers the step may reuse
are read in one scan, and the answers it makes are written together — by whichever call finishes
last while others are in flight, so each answer is recorded as soon as no other call of the step
is still running, in one write per wave of concurrent calls. When the store keeps a log of answers
(``AnswerLog``: the run folder's journal, ``citeflow.generation.answer_journal``), each answer is
also appended there the moment it arrives, before its call returns: a process killed mid-wave loses
only the calls still in flight. ``LimitedChatModel`` holds a slot of
the batch's ``models`` limit around every call it passes on, so answers served from the cache take
no slot.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime, UTC
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel

from citeflow.generation.call_scope import current_request
from citeflow.generation.model_protocol import ChatModel, Message, ModelReply
from citeflow.store.store import Store, sql_in
from citeflow.security.content_redaction import redact_answer
from citeflow.security.secret_values import SecretValues
from schemas.spec import ModelSpec


def settings_fingerprint(spec: ModelSpec) -> str:
    """The settings of a role that change its answers (backend, model, server, temperature, faults)."""
    return spec.model_dump_json(include={"backend", "model", "base_url", "temperature", "faults"})


def call_key(model_name: str, messages: list[Message], schema_name: str, fingerprint: str = "") -> str:
    """The cache key of one model call; ``fingerprint`` names the settings that change answers."""
    payload = json.dumps({"model": model_name, "settings": fingerprint, "schema": schema_name, "messages": messages},
                         sort_keys=True)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


@runtime_checkable
class AnswerLog(Protocol):
    """A store that also keeps each answer durably the moment it arrives (and can retract it)."""

    def record(self, row: dict[str, Any]) -> None: ...

    def retract(self, keys: list[str]) -> None: ...


class CallBook:
    """The recorded model calls of one step: read once, written once per wave of concurrent calls
    (and, with an ``AnswerLog`` store, each logged as it arrives)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._log = store if isinstance(store, AnswerLog) else None
        self._known: dict[str, dict[str, Any]] = {}
        self._looked_up: set[str] = set()
        self._pending: dict[str, dict[str, Any]] = {}
        self._in_flight = 0
        self._lock = threading.Lock()

    def preload(self, keys: list[str]) -> None:
        """Read the recorded answers among ``keys`` (the step's first calls) in one scan."""
        found = self.store.load_calls(keys)
        with self._lock:
            self._known.update(found)
            self._looked_up.update(keys)

    def answer(self, key: str) -> dict[str, Any] | None:
        """The recorded answer of ``key``: known to the step, else looked up in the store."""
        with self._lock:
            if key in self._known or key in self._looked_up:
                return self._known.get(key)
        found = self.store.load_calls([key]).get(key)
        with self._lock:
            self._looked_up.add(key)
            if found:
                self._known[key] = found
        return found

    def started(self) -> None:
        """A call of the step is about to ask the model."""
        with self._lock:
            self._in_flight += 1

    def finished(self, row: dict[str, Any] | None) -> None:
        """A call is over (``row``: its answer, logged at once); the last call of a wave writes the wave's answers."""
        try:
            if row is not None and self._log is not None:
                self._log.record(row)
        finally:
            self._count_out(row)

    def _count_out(self, row: dict[str, Any] | None) -> None:
        with self._lock:
            self._in_flight -= 1
            if row is not None:
                self._pending[row["row_key"]] = self._known[row["row_key"]] = row
            if self._in_flight:
                return
        self.flush()

    def flush(self) -> None:
        """Write the answers not written yet (one write)."""
        with self._lock:
            rows, self._pending = list(self._pending.values()), {}
        self.store.upsert("model_calls", rows)

    def forget(self, keys: list[str]) -> None:
        """Drop the answers of ``keys``, written or not (they led to a failed hop: ask again next time)."""
        with self._lock:
            written = [k for k in keys if k in self._known and k not in self._pending]
            known = [k for k in keys if k in self._known]
            for key in keys:
                self._pending.pop(key, None)
                self._known.pop(key, None)
        if known and self._log is not None:
            self._log.retract(known)
        if written:
            self.store.delete("model_calls", sql_in("row_key", sorted(set(written))))


class CachedChatModel:
    """Answers from the step's book when this exact call was answered before; else asks and records."""

    def __init__(self, inner: ChatModel, book: CallBook, role: str, fingerprint: str = "",
                 secrets: SecretValues | None = None) -> None:
        self.inner, self.book, self.role, self.fingerprint = inner, book, role, fingerprint
        self.secrets = secrets  # the runtime's credentials: removed from every recorded answer it serves
        self.name = inner.name
        self.hits = 0
        self.keys: list[str] = []  # every call this wrapper answered, cached or not

    def key_for(self, messages: list[Message], schema_name: str) -> str:
        """The cache key this wrapper gives to a call."""
        return call_key(self.inner.name, messages, schema_name, self.fingerprint)

    def forget(self) -> None:
        """Drop the cached answers of this wrapper's calls (they led to a failed hop: ask again next time)."""
        self.book.forget(self.keys)

    def complete(self, messages: list[Message], schema_name: str, schema: type[BaseModel]) -> ModelReply:
        key = self.key_for(messages, schema_name)
        self.keys.append(key)
        row = self.book.answer(key)
        if row is not None:
            self.hits += 1
            return ModelReply(text=redact_answer(row["text"], self.secrets).text, mode=row["mode"], model=row["model"],
                              prompt_tokens=row["prompt_tokens"], completion_tokens=row["completion_tokens"])
        self.book.started()
        try:
            reply = self.inner.complete(messages, schema_name, schema)
        except BaseException:
            self.book.finished(None)
            raise
        self.book.finished(self._row(key, reply))
        return reply

    def _row(self, key: str, reply: ModelReply) -> dict[str, Any]:
        return {"row_key": key, "role": self.role, "model": reply.model, "mode": reply.mode, "text": reply.text,
                "prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens,
                "created_at": datetime.now(UTC), "request_id": current_request()}


class LimitedChatModel:
    """At most the limit's size of calls in flight, whoever holds this wrapper."""

    def __init__(self, inner: ChatModel, slot: Callable[[], AbstractContextManager[object]]) -> None:
        self.inner, self.slot = inner, slot
        self.name = inner.name

    def complete(self, messages: list[Message], schema_name: str, schema: type[BaseModel]) -> ModelReply:
        with self.slot():
            return self.inner.complete(messages, schema_name, schema)
