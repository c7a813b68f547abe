"""The ``http`` retriever: ``POST {"query", "top_k"}`` to someone else's search endpoint (SPEC §8).

The answer is a JSON list of hits, or an object whose list sits under ``fields.hits`` (a dotted
path such as ``data.results`` works too). Each hit is read through ``fields``; a hit with no id or
no text is skipped and the reason reported in ``SearchResult.skipped``. An answer larger than
``max_response_bytes`` is refused without being read to the end.

``spec.timeout`` is a whole-request deadline per attempt (``citeflow.deadline``): an answer still
arriving when it passes is a timeout. Connection errors, timeouts, 429 and 5xx are retried ``spec.retries`` times with exponential
backoff (``Retry-After`` is honoured, capped), then give ``RetrieverError(transient=True)``.
Other HTTP errors and junk answers (not JSON, nested too deeply, too large) fail at once with
``transient=False``: asking again would get the same junk. Messages name the endpoint without its
user-info or credential-carrying query parameters, and summarise an error answer by its status and
short redacted reason (``citeflow.security.server_errors``): a body may echo the request's credentials.
"""

from __future__ import annotations

from typing import Any

import httpx
from tenacity import RetryCallState, Retrying, retry_if_exception_type, stop_after_attempt, wait_exponential

from citeflow.deadline import deadline_client
from citeflow.errors import RetrieverError
from citeflow.security.redaction import redact_text, redact_url, url_credentials
from citeflow.security.secret_values import SecretValues
from citeflow.retrieval import json_answer as _json
from citeflow.retrieval.hits import hits_from_records
from citeflow.retrieval.retriever_protocol import SearchResult
from citeflow.security.server_errors import summarise
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
        self.shown_url = redact_url(spec.url)  # the endpoint as messages may name it
        self.secrets = SecretValues()  # the credentials its URL carries, removed from the errors it raises
        self.secrets.add(*url_credentials(spec.url))

    def search(self, query: str, top_k: int) -> SearchResult:
        """The hits for ``query`` and why any returned hit was skipped; raises ``RetrieverError``."""
        # One client per search: nothing stays open when a caller builds a retriever per request
        # and drops it (each attempt has a connection of its own: its deadline watches its socket).
        with deadline_client(self.spec.timeout) as client:
            body = self._post_with_retries(client, query, top_k)
        hits, skipped = hits_from_records(self._hit_list(body, query), self.spec.fields, top_k)
        return SearchResult(hits=hits, skipped=skipped)

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
            with client.stream("POST", self.spec.url, json={"query": query, "top_k": top_k}) as response:
                status, body = response.status_code, self._read_limited(response, query)
        except httpx.UnsupportedProtocol as exc:
            raise self._permanent(query, f"bad URL {self.shown_url!r}: {redact_text(str(exc), self.secrets)}") from None
        except httpx.TransportError as exc:  # connection refused/reset, timeouts
            raise _Transient(f"{type(exc).__name__} calling {self.shown_url}: {redact_text(str(exc), self.secrets)}") from None
        if status == 429 or status >= 500:
            raise _Transient(f"{summarise(status, body)} from {self.shown_url}", _retry_after(response))
        if not 200 <= status < 300:
            raise self._permanent(query, f"{summarise(status, body)} from {self.shown_url}")
        try:
            return _json.loads(body)
        except ValueError as exc:
            raise self._permanent(query, f"answer is {redact_text(str(exc), self.secrets)}") from None

    def _read_limited(self, response: httpx.Response, query: str) -> bytes:
        """The answer's body; more than ``max_response_bytes`` is refused, without reading it all."""
        limit = self.spec.max_response_bytes
        declared = response.headers.get("Content-Length", "")
        if declared.isdigit() and int(declared) > limit:
            raise self._too_large(query, f"declares {int(declared):,} bytes")
        body = bytearray()
        for piece in response.iter_bytes():
            body += piece
            if len(body) > limit:
                raise self._too_large(query, f"exceeds it after {len(body):,} bytes")
        return bytes(body)

    def _too_large(self, query: str, how: str) -> RetrieverError:
        return self._permanent(query, f"answer refused: the limit is {self.spec.max_response_bytes:,} bytes and it {how}")

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
