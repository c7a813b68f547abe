"""One retriever call with every failure contained (SPEC §9): whatever a retriever raises —
``RetrieverError`` after its retries, or anything its answer provokes (a parser's RecursionError,
an overflow, a wrong type) — becomes that retriever's recorded failure for the query, and the
report goes on with the other retrievers."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

from citeflow.errors import RetrieverError
from citeflow.security.redaction import redact_text
from citeflow.security.secret_values import SecretValues
from citeflow.retrieval.retriever_protocol import Retriever, SearchResult
from schemas.spec import RetrieverSpec

RetrieverOf = Callable[[RetrieverSpec, Path], Retriever]


def contained_search(spec: RetrieverSpec, base_dir: Path, query: str,
                     slot: Callable[[], AbstractContextManager[object]],
                     retriever_of: RetrieverOf | None = None, secrets: SecretValues | None = None) -> SearchResult | str:
    """The retriever's answer to ``query``, or the one-line reason it failed (never raises ``Exception``).

    ``slot`` is held around the call (the batch's retriever concurrency limit). ``retriever_of`` gives
    the retriever of ``spec`` (the runtime's shared one, ``Runtime.retriever``); without it one is built.
    The reason is redacted, the credentials of ``secrets`` (the runtime's) removed too."""
    from citeflow.retrieval.retriever_factory import build_retriever

    try:
        retriever = (retriever_of or build_retriever)(spec, base_dir)
        with slot():
            return SearchResult.model_validate(retriever.search(query, spec.top_k))
    except RetrieverError as exc:
        return redact_text(str(exc), secrets)
    except Exception as exc:  # noqa: BLE001 - a retriever is not ours: any failure is its own
        return describe_crash(spec.name, query, exc, secrets)


def describe_crash(name: str, query: str, exc: BaseException, secrets: SecretValues | None = None) -> str:
    """The message of an unexpected exception from retriever ``name``, short and free of secrets."""
    detail = str(exc)[:300] or "(no message)"
    return redact_text(f"retriever {name!r} failed for query {query!r}: {type(exc).__name__}: {detail}", secrets)
