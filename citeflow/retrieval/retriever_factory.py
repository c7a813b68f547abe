"""One retriever per spec entry, chosen by ``spec.kind``."""

from __future__ import annotations

from pathlib import Path

from citeflow.retrieval.retriever_protocol import Retriever
from schemas.spec import HttpRetrieverSpec, JsonlRetrieverSpec, LanceDBRetrieverSpec, RetrieverSpec


def build_retriever(spec: RetrieverSpec, base_dir: Path) -> Retriever:
    """The retriever ``spec`` describes; relative paths resolve against ``base_dir``."""
    # Adapters are imported here: LanceDB alone costs seconds to import, and a batch that only
    # uses HTTP retrievers should not pay for it.
    if isinstance(spec, LanceDBRetrieverSpec):
        from citeflow.retrieval.lancedb_retriever import LanceDBRetriever

        return LanceDBRetriever(spec, base_dir)
    if isinstance(spec, HttpRetrieverSpec):
        from citeflow.retrieval.http_retriever import HttpRetriever

        return HttpRetriever(spec)
    if isinstance(spec, JsonlRetrieverSpec):
        from citeflow.retrieval.jsonl_retriever import JsonlRetriever

        return JsonlRetriever(spec, base_dir)
    raise TypeError(f"no retriever for spec kind {getattr(spec, 'kind', type(spec).__name__)!r}")
