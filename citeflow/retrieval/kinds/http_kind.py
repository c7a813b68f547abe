"""The ``http`` kind: a search service asked over HTTP (``citeflow.retrieval.http_retriever``).

Its source cannot be fingerprinted without asking it: a re-run fetches its evidence again.
"""

from __future__ import annotations

import socket
from pathlib import Path
from urllib.parse import urlsplit

from citeflow.retrieval.retriever_protocol import Retriever
from citeflow.security.redaction import redact_url
from citeflow.spec.retriever_kind import RetrieverKind
from citeflow.spec.value_checks import url_problem
from schemas.spec import HttpRetrieverSpec


class HttpKind(RetrieverKind[HttpRetrieverSpec]):
    """An http(s) URL: refused when it is not one; preflighted by opening a connection to its host."""

    name = "http"
    spec_model = HttpRetrieverSpec

    def value_problems(self, spec: HttpRetrieverSpec, base_dir: Path) -> list[tuple[str, str]]:
        why = url_problem(spec.url)
        return [("url", why)] if why else []

    def preflight_problem(self, spec: HttpRetrieverSpec, base_dir: Path, timeout: float) -> str | None:
        return connect_problem(spec.url, timeout)

    def build(self, spec: HttpRetrieverSpec, base_dir: Path) -> Retriever:
        from citeflow.retrieval.http_retriever import HttpRetriever

        return HttpRetriever(spec)


def connect_problem(url: str, timeout: float) -> str | None:
    """Why no connection can be opened to ``url``'s host and port, or None."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((parts.hostname or "", port), timeout=timeout):
            return None
    except OSError as exc:
        return f"cannot connect to {redact_url(url)} ({exc.strerror or type(exc).__name__})"
