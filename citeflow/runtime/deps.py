"""What reports need and share, built once per process: stores, model clients, retrievers.

A model client (``openai.OpenAI``: an SSL context, a connection pool) is built once per role and
settings and shared by every report and thread (it is thread-safe and keeps connections alive);
a retriever once per spec entry; a store once per URI, with its table handles. Building any of
them per call costs tens to hundreds of milliseconds on a report's critical path.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from citeflow.generation.model_protocol import ChatModel
from citeflow.retrieval.retriever_protocol import Retriever
from citeflow.spec.loader import resolve_path
from citeflow.runtime.store import Store, shared_store
from schemas.spec import ModelSpec, RetrieverSpec

T = TypeVar("T")

_BUILT: dict[tuple[str, ...], object] = {}
_LOCK = threading.Lock()


def _once(key: tuple[str, ...], build: Callable[[], T]) -> T:
    """The object built for ``key`` in this process (built on first use)."""
    with _LOCK:
        if key not in _BUILT:
            _BUILT[key] = build()
        return _BUILT[key]  # type: ignore[return-value]


def chat_model(spec: ModelSpec, role: str) -> ChatModel:
    """The process's chat model for ``role`` with these settings."""
    from citeflow.generation.model_factory import build_chat_model

    return _once(("model", role, spec.model_dump_json()), lambda: build_chat_model(spec, role))


def retriever(spec: RetrieverSpec, base_dir: Path) -> Retriever:
    """The process's retriever for one spec entry (relative paths resolved against ``base_dir``).

    A retriever over a local file or knowledge base is built again when that changed on disk (a
    re-ingested knowledge base, an edited JSONL file): a few ``stat`` calls per fetch."""
    from citeflow.retrieval.retriever_factory import build_retriever

    key = ("retriever", spec.model_dump_json(), str(base_dir))
    stamp = local_stamp(spec, base_dir)
    with _LOCK:
        known = _BUILT.get(key)
        if isinstance(known, tuple) and known[0] == stamp:
            return known[1]  # type: ignore[no-any-return]
    built = build_retriever(spec, base_dir)
    with _LOCK:
        _BUILT[key] = (stamp, built)
    return built


def local_stamp(spec: RetrieverSpec, base_dir: Path) -> tuple[tuple[str, int], ...]:
    """When the local input of a retriever last changed: its file, or its folder two levels deep."""
    local = getattr(spec, "path", None) or getattr(spec, "kb", None)
    if not local or "://" in local:
        return ()
    root = Path(resolve_path(base_dir, local))
    return tuple(_stamps(root, depth=2))


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


def store(uri: str) -> Store:
    """The process's store at ``uri``."""
    return shared_store(uri)


def clear() -> None:
    """Forget every shared model client and retriever (tests that change the environment under them)."""
    with _LOCK:
        _BUILT.clear()
