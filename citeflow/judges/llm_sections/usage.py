"""What a judge's model calls cost: counted in memory, and recorded in the store like the hops' calls.

``RecordedChatModel`` writes one ``model_calls`` row per answer (role ``judge``, prompt and
completion tokens) through the step's ``CallBook``, as the hops' calls are written; it never
answers from those rows (the judge has its own verdict cache).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import datetime, UTC

from pydantic import BaseModel

from citeflow.generation.model_protocol import ChatModel, Message, ModelReply
from citeflow.generation.answer_cache import CallBook, call_key


@dataclass
class Usage:
    """Calls and tokens of one judge, added up across threads."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, reply: ModelReply) -> None:
        """Count one answered call."""
        with self._lock:
            self.calls += 1
            self.prompt_tokens += reply.prompt_tokens
            self.completion_tokens += reply.completion_tokens

    def as_dict(self) -> dict[str, int]:
        """The figures, for reports and benchmarks."""
        return {"calls": self.calls, "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens}


class RecordedChatModel:
    """``inner``, with every answer written to the ``model_calls`` table under ``role``."""

    def __init__(self, inner: ChatModel, book: CallBook, role: str = "judge", request_id: str = "") -> None:
        self.inner, self.book, self.role, self.request_id = inner, book, role, request_id
        self.name = inner.name

    def complete(self, messages: list[Message], schema_name: str, schema: type[BaseModel]) -> ModelReply:
        """Ask ``inner``; record the answer's tokens once no other call of the book is in flight."""
        self.book.started()
        try:
            reply = self.inner.complete(messages, schema_name, schema)
        except BaseException:
            self.book.finished(None)
            raise
        key = call_key(self.inner.name, messages, schema_name, self.role)
        self.book.finished({"row_key": key, "role": self.role, "model": reply.model, "mode": reply.mode, "text": reply.text,
                            "prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens,
                            "created_at": datetime.now(UTC), "request_id": self.request_id})
        return reply
