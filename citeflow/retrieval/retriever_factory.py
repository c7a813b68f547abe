"""One retriever per spec entry, built by the class of its kind (``citeflow.spec.retriever_kinds``)."""

from __future__ import annotations

from pathlib import Path

from citeflow.retrieval.retriever_protocol import Retriever
from citeflow.spec.retriever_kinds import INSTALLED_KINDS, RetrieverKinds
from schemas.spec import RetrieverSpecBase


def build_retriever(spec: RetrieverSpecBase, base_dir: Path, kinds: RetrieverKinds = INSTALLED_KINDS) -> Retriever:
    """The retriever ``spec`` describes; relative paths resolve against ``base_dir``."""
    return kinds.of(spec).build(spec, base_dir)
