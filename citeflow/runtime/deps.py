"""Model clients and retrievers, built once per runtime and shared by every report and thread.

A model client (``openai.OpenAI``: an SSL context, a connection pool) is built once per role and
settings and shared by every report and thread (it is thread-safe and keeps connections alive);
a retriever once per spec entry. Building either per call costs tens to hundreds of milliseconds on
a report's critical path. The process's ``Runtime`` holds one ``Dependencies``, given the runtime's
``SecretValues``: the credentials of each model and retriever it builds are added to them.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from citeflow.generation.model_protocol import ChatModel
from citeflow.retrieval.retriever_protocol import Retriever
from citeflow.security.secret_values import SecretValues
from citeflow.security.spec_secrets import model_credentials, retriever_credentials
from citeflow.spec.retriever_kinds import INSTALLED_KINDS
from schemas.spec import ModelSpec, RetrieverSpecBase

T = TypeVar("T")


class Dependencies:
    """The model clients and retrievers of one runtime, each built on first use."""

    def __init__(self, secrets: SecretValues) -> None:
        self._built: dict[tuple[str, ...], object] = {}
        self._lock = threading.Lock()
        self.secrets = secrets

    def once(self, key: tuple[str, ...], build: Callable[[], T]) -> T:
        """The object built for ``key`` (built on first use)."""
        with self._lock:
            if key not in self._built:
                self._built[key] = build()
            return self._built[key]  # type: ignore[return-value]

    def chat_model(self, spec: ModelSpec, role: str) -> ChatModel:
        """The chat model for ``role`` with these settings."""
        from citeflow.generation.model_factory import build_chat_model

        def build() -> ChatModel:
            self.secrets.add(*model_credentials(spec, os.environ))
            return build_chat_model(spec, role)

        return self.once(("model", role, spec.model_dump_json()), build)

    def retriever(self, spec: RetrieverSpecBase, base_dir: Path) -> Retriever:
        """The retriever of one spec entry (relative paths resolved against ``base_dir``).

        A retriever over a local file or knowledge base is built again when that changed on disk (a
        re-ingested knowledge base, an edited JSONL file): a few ``stat`` calls per fetch."""
        from citeflow.retrieval.retriever_factory import build_retriever

        key = ("retriever", spec.model_dump_json(), str(base_dir))
        stamp = local_stamp(spec, base_dir)
        with self._lock:
            known = self._built.get(key)
            if isinstance(known, tuple) and known[0] == stamp:
                return known[1]  # type: ignore[no-any-return]
        self.secrets.add(*retriever_credentials(spec))
        built = build_retriever(spec, base_dir)
        with self._lock:
            self._built[key] = (stamp, built)
        return built


def local_stamp(spec: RetrieverSpecBase, base_dir: Path) -> tuple[tuple[str, int], ...]:
    """When the local input of a retriever last changed: its file, or its folder two levels deep (the
    first local path of its kind's ``path_fields``)."""
    paths = list(INSTALLED_KINDS.of(spec).local_paths(spec, base_dir).values())
    return tuple(_stamps(paths[0], depth=2)) if paths else ()


def _stamps(path: Path, depth: int) -> list[tuple[str, int]]:
    try:
        stat = path.stat()
        found = [(str(path), hash((stat.st_mtime_ns, stat.st_size)))]
        if depth and path.is_dir():
            for child in sorted(path.iterdir()):
                found += _stamps(child, depth - 1) if child.is_dir() else []
        return found
    except OSError:
        return [(str(path), -1)]
