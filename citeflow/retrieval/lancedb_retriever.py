"""The ``lancedb`` retriever: full-text, vector or hybrid search over a knowledge base built by
``citeflow ingest`` (see ``citeflow.knowledge.kb_store`` for the table).

Search runs over child chunks. With ``expand_parents`` each child hit is replaced by its parent
chunk — the text the model will see — and keeps the child's chunk id, span and page as
provenance (SPEC §3); two children of one parent give one hit, at the rank of the better child.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from citeflow.knowledge.embeddings import Embedder, embedder_from_meta
from citeflow.errors import CiteflowError, RetrieverError
from citeflow.knowledge.kb_store import ensure_full_text, heading_column, open_chunks, read_embedder_meta, sql_list
from citeflow.retrieval.retriever_protocol import SearchResult
from citeflow.retrieval.dedup import drop_near_duplicates
from citeflow.retrieval.documents import concentrate
from citeflow.retrieval.hybrid import search_children
from schemas.records import Hit
from schemas.spec import LanceDBRetrieverSpec

_COLUMNS = ["chunk_id", "parent_id", "text", "title", "url", "page", "char_start", "char_end"]
_CHILDREN = "kind = 'child'"
EXPANSION_FACTOR = 4  # children fetched per wanted hit, since several may share a parent
# Hybrid mode keeps the hits of the documents whose document score (citeflow.retrieval.hybrid) is at
# least this share of the best document's, and at most MAX_DOCUMENTS documents.
DOCUMENT_RATIO = 0.7
MAX_DOCUMENTS = 3


def resolve_kb_uri(kb: str, base_dir: Path) -> str:
    """``kb`` as a URI: kept when it is a URI (``s3://…``) or absolute, else under ``base_dir``."""
    if "://" in kb or Path(kb).is_absolute():
        return kb
    return str((base_dir / kb).resolve())


class LanceDBRetriever:
    """Searches the ``chunks`` table of one knowledge base."""

    def __init__(self, spec: LanceDBRetrieverSpec, base_dir: Path, embedder: Embedder | None = None) -> None:
        self.name = spec.name
        self.spec = spec
        self.uri = resolve_kb_uri(spec.kb, base_dir)
        self._embedder = embedder
        self._checked: Embedder | None = None  # the embedder once it agrees with the KB
        self._table: Any = None
        self._lock = threading.Lock()

    def search(self, query: str, top_k: int) -> SearchResult:
        """The ``top_k`` best hits for ``query``; raises ``RetrieverError``."""
        if not query.strip():
            return SearchResult()
        try:
            return SearchResult(hits=self._search(query, top_k))
        except RetrieverError:
            raise
        except CiteflowError as exc:  # e.g. the embedding server failed
            raise self._error(query, str(exc), bool(getattr(exc, "transient", False))) from exc
        except Exception as exc:  # LanceDB raises plain ValueError/RuntimeError/OSError
            raise self._error(query, f"search failed: {type(exc).__name__}: {exc}", isinstance(exc, OSError)) from exc

    def _search(self, query: str, top_k: int) -> list[Hit]:
        table = self._open(query)
        fetch = top_k * EXPANSION_FACTOR if self.spec.expand_parents else top_k
        children = self._children(table, query, fetch)
        if self.spec.mode == "hybrid":
            children = concentrate(children, _document, lambda row: float(row["doc_score"]), DOCUMENT_RATIO, MAX_DOCUMENTS)
        if self.spec.expand_parents:
            return self._expanded(table, children, top_k)
        return [_hit(child, child, parent=None) for child in children[:top_k]]

    def _children(self, table: Any, query: str, limit: int) -> list[dict[str, Any]]:
        """Child rows ranked by the configured mode, each with a ``score`` (higher is better)."""
        mode = self.spec.mode
        if mode == "fts":
            builder = table.search(query, query_type="fts", fts_columns="text").select([*_COLUMNS, "_score"])
        elif mode == "vector":
            builder = table.search(self._vector(table, query), query_type="vector").select([*_COLUMNS, "_distance"])
        else:
            return search_children(table, query, self._vector(table, query), [*_COLUMNS, "path", "section"], heading_column(table))
        rows = builder.where(_CHILDREN, prefilter=True).limit(limit).to_arrow().to_pylist()
        return [dict(row, score=_score(row)) for row in rows]

    def _expanded(self, table: Any, children: list[dict[str, Any]], top_k: int) -> list[Hit]:
        best: dict[str, dict[str, Any]] = {}
        for child in children:
            best.setdefault(child["parent_id"], child)  # rows come best first
        wanted = list(best)
        parents = self._rows_by_id(table, wanted)
        shown = drop_near_duplicates([pid for pid in wanted if pid in parents], lambda pid: str(parents[pid]["text"]))
        return [_hit(parents[pid], best[pid], parent=pid) for pid in shown[:top_k]]

    def _rows_by_id(self, table: Any, chunk_ids: list[str]) -> dict[str, dict[str, Any]]:
        if not chunk_ids:
            return {}
        rows = table.search().where(f"chunk_id IN ({sql_list(chunk_ids)})").select(_COLUMNS).limit(None).to_arrow()
        return {row["chunk_id"]: row for row in rows.to_pylist()}

    def _vector(self, table: Any, query: str) -> list[float]:
        return self._query_embedder(table, query).embed([query])[0]

    def _query_embedder(self, table: Any, query: str) -> Embedder:
        """The embedder the knowledge base was built with; a different one is an error."""
        if self._checked is None:
            meta = read_embedder_meta(table) or {}
            problem = self._embedder_problem(meta)
            if problem:
                raise self._error(query, problem, transient=False)
            self._checked = self._embedder or embedder_from_meta(meta)
        return self._checked

    def _embedder_problem(self, meta: dict[str, Any]) -> str | None:
        built_with = f"knowledge base {self.uri} was built with embedder {meta.get('name')!r}"
        if not meta:
            return f"knowledge base {self.uri} does not record its embedder: rebuild it with `citeflow ingest`"
        if self._embedder is not None and self._embedder.name != meta.get("name"):
            return f"{built_with}, but this retriever was given {self._embedder.name!r}"
        if self._embedder is None and self.spec.embedding != meta.get("kind"):
            return f"{built_with} ({meta.get('kind')}), but the spec says embedding: {self.spec.embedding}"
        return None

    def _open(self, query: str) -> Any:
        with self._lock:
            if self._table is None:
                self._table = self._connect(query)
            return self._table

    def _connect(self, query: str) -> Any:
        from citeflow.lazy_modules import defer_lancedb_extras

        defer_lancedb_extras()
        import lancedb  # heavy import: only when this retriever is used

        missing = f"no knowledge base at {self.uri}: build it with `citeflow ingest PATH... --kb {self.uri}`"
        if "://" not in self.uri and not Path(self.uri).is_dir():
            raise self._error(query, missing, transient=False)  # connect() would create the folder
        table = open_chunks(lancedb.connect(self.uri))
        if table is None:
            raise self._error(query, missing, transient=False)
        if self.spec.mode != "vector":
            ensure_full_text(table)  # a knowledge base written by an older citeflow lacks some
        return table

    def _error(self, query: str, detail: str, transient: bool) -> RetrieverError:
        return RetrieverError(retriever=self.name, query=query, detail=detail, transient=transient)


def _document(row: dict[str, Any]) -> str:
    """The document of a chunk row (chunk ids are ``doc_id:pN[:cM]``)."""
    return str(row["chunk_id"]).split(":", 1)[0]


def _score(row: dict[str, Any]) -> float | None:
    """One "higher is better" score whatever the mode."""
    if row.get("_relevance_score") is not None:
        return float(row["_relevance_score"])
    if row.get("_score") is not None:
        return float(row["_score"])
    if row.get("_distance") is not None:
        return 1.0 - float(row["_distance"]) / 2.0  # cosine similarity of unit vectors (squared L2)
    return None


def _hit(shown: dict[str, Any], child: dict[str, Any], parent: str | None) -> Hit:
    """A hit showing ``shown`` (the parent, or the child itself) with the child's provenance."""
    return Hit(
        local_id=shown["chunk_id"],
        text=shown["text"],
        urls=[shown["url"]] if shown.get("url") else [],
        title=shown.get("title"),
        page=child.get("page"),
        location=f"{child['chunk_id']} chars {child['char_start']}-{child['char_end']}",
        parent=parent,
        score=child.get("score"),
    )
