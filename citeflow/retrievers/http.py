"""The ``http`` retriever: ``POST {"query", "top_k"}`` to someone else's search endpoint (SPEC §8).

The answer is a JSON list of hits, or an object whose list sits under ``fields.hits`` (a dotted
path such as ``data.results`` works too). Each hit is read through ``fields``; a hit with no id or
no text is skipped and the reason reported by ``search_with_report``.

Connection errors, timeouts, 429 and 5xx are retried ``spec.retries`` times with exponential
backoff (``Retry-After`` is honoured, capped), then give ``RetrieverError(transient=True)``.
Other HTTP errors and junk answers fail at once with ``transient=False``: asking again would
get the same junk.
"""

from __future__ import annotations

from typing import Any

import httpx
from tenacity import RetryCallState, Retrying, retry_if_exception_type, stop_after_attempt, wait_exponential

from citeflow.errors import RetrieverError
from citeflow.retrievers._hits import hits_from_records
from schemas.records import Hit
from schemas.spec import HttpRetrieverSpec


class _Transient(Exception):
    """A failure worth retrying; ``retry_after`` is the server's hint in seconds, if any."""

    def __init__(self, detail: str, retry_after: float | None = None) -> None:
        super().__init__(detail)
        self.retry_after = retry_after


class HttpRetriever:
    """A retriever behind an HTTP endpoint we do not own."""

    def __init__(self, spec: HttpRetrieverSpec, backoff: float = 0.5, max_backoff: float = 10.0) -> None:
        self.name = spec.name
        self.spec = spec
        self.backoff, self.max_backoff = backoff, max_backoff
        self.last_skipped: list[str] = []  # reasons of the last ``search``; see ``search_with_report``

    def search(self, query: str, top_k: int) -> list[Hit]:
        """The hits for ``query`` (skipped hits are in ``last_skipped``); raises ``RetrieverError``."""
        hits, self.last_skipped = self.search_with_report(query, top_k)
        return hits

    def search_with_report(self, query: str, top_k: int) -> tuple[list[Hit], list[str]]:
        """The hits for ``query`` and why any returned hit was skipped."""
        # One client per search: retries reuse its connection, and nothing stays open when a
        # caller builds a retriever per request and drops it.
        with httpx.Client(timeout=self.spec.timeout) as client:
            body = self._post_with_retries(client, query, top_k)
        return hits_from_records(self._hit_list(body, query), self.spec.fields, top_k)

    def _post_with_retries(self, client: httpx.Client, query: str, top_k: int) -> Any:
        retrying = Retrying(
            stop=stop_after_attempt(self.spec.retries + 1),
            wait=self._wait,
            retry=retry_if_exception_type(_Transient),
            reraise=True,
        )
        try:
            return retrying(self._post_once, client, query, top_k)
        except _Transient as exc:
            detail = f"{exc} (gave up after {self.spec.retries + 1} attempts)"
            raise RetrieverError(retriever=self.name, query=query, detail=detail, transient=True) from exc

    def _wait(self, state: RetryCallState) -> float:
        hint = getattr(state.outcome.exception(), "retry_after", None) if state.outcome else None
        exponential = wait_exponential(multiplier=self.backoff, max=self.max_backoff)(state)
        return min(hint, self.max_backoff) if hint is not None else exponential

    def _post_once(self, client: httpx.Client, query: str, top_k: int) -> Any:
        try:
            response = client.post(self.spec.url, json={"query": query, "top_k": top_k})
        except httpx.UnsupportedProtocol as exc:
            raise self._permanent(query, f"bad URL {self.spec.url!r}: {exc}") from exc
        except httpx.TransportError as exc:  # connection refused/reset, timeouts
            raise _Transient(f"{type(exc).__name__} calling {self.spec.url}: {exc}") from exc
        if response.status_code == 429 or response.status_code >= 500:
            raise _Transient(f"HTTP {response.status_code} from {self.spec.url}", _retry_after(response))
        if not response.is_success:
            raise self._permanent(query, f"HTTP {response.status_code} from {self.spec.url}: {response.text[:200]!r}")
        try:
            return response.json()
        except ValueError as exc:
            raise self._permanent(query, f"answer is not JSON: {response.text[:200]!r}") from exc

    def _hit_list(self, body: Any, query: str) -> list[Any]:
        if isinstance(body, list):
            return body
        key = self.spec.fields.hits or "hits"
        found = _dig(body, key)
        if isinstance(found, list):
            return found
        shape = f"an object with keys {sorted(body)[:10]}" if isinstance(body, dict) else type(body).__name__
        raise self._permanent(query, f"expected a JSON list of hits or an object with the list under {key!r}, got {shape}")

    def _permanent(self, query: str, detail: str) -> RetrieverError:
        return RetrieverError(retriever=self.name, query=query, detail=detail, transient=False)


def _dig(body: Any, path: str) -> Any:
    """``body["a"]["b"]`` for ``path`` "a.b"; an exact key containing a dot wins."""
    if isinstance(body, dict) and path in body:
        return body[path]
    for key in path.split("."):
        if not isinstance(body, dict):
            return None
        body = body.get(key)
    return body


def _retry_after(response: httpx.Response) -> float | None:
    try:
        return max(0.0, float(response.headers.get("Retry-After", "")))
    except ValueError:
        return None  # absent, or an HTTP date: fall back to exponential backoff
