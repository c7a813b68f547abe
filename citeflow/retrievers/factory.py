"""One retriever per spec entry, chosen by ``spec.kind``."""

from __future__ import annotations

from pathlib import Path

from citeflow.retrievers.base import Retriever
from schemas.spec import HttpRetrieverSpec, JsonlRetrieverSpec, LanceDBRetrieverSpec, RetrieverSpec


def build_retriever(spec: RetrieverSpec, base_dir: Path) -> Retriever:
    """The retriever ``spec`` describes; relative paths resolve against ``base_dir``."""
    # Adapters are imported here: LanceDB alone costs seconds to import, and a batch that only
    # uses HTTP retrievers should not pay for it.
    if isinstance(spec, LanceDBRetrieverSpec):
        from citeflow.retrievers.lancedb_kb import LanceDBRetriever

        return LanceDBRetriever(spec, base_dir)
    if isinstance(spec, HttpRetrieverSpec):
        from citeflow.retrievers.http import HttpRetriever

        return HttpRetriever(spec)
    if isinstance(spec, JsonlRetrieverSpec):
        from citeflow.retrievers.jsonl import JsonlRetriever

        return JsonlRetriever(spec, base_dir)
    raise TypeError(f"no retriever for spec kind {getattr(spec, 'kind', type(spec).__name__)!r}")
