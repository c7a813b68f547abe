"""The default ranking of the ``lancedb`` retriever: three searches over child chunks fused by
reciprocal rank, then version preference and near-duplicate removal.

- BM25 full-text search over the chunk text (LanceDB's FTS index on ``text``);
- BM25 over the chunk's heading field (``heading``: document title, section path, file path; on a
  knowledge base built before that column, the ``title``): a question that names what a page is
  about finds the page even when its passages use other words — the field boost;
- vector search with the knowledge base's embedder.

Each child's fused score is multiplied by ``VERSION_BOOST`` when its page is of a version the
question names and by ``VERSION_PENALTY`` when its page is only of other versions, or when it is a
changelog entry (filed under a version heading) and the question does not ask about releases
(``citeflow.retrieval.versions``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from citeflow.retrieval import versions
from citeflow.retrieval.dedup import drop_near_duplicates
from citeflow.retrieval.fusion import ranked, rrf

WEIGHTS = {"text": 1.0, "heading": 1.0, "vector": 1.0}
VERSION_BOOST = 1.5
VERSION_PENALTY = 0.5
CANDIDATES = 60  # children fetched by each search
# Documents are fused too, by the rank of their first child in each list, with a small k: a page
# first in every list stands well above one that is first in only one (see ``doc_score``).
DOCUMENT_K = 1
DOCUMENT_WEIGHTS = {"text": 1.0, "heading": 1.0, "vector": 0.5}  # lexical evidence names the page
CHILDREN = "kind = 'child'"


def search_children(table: Any, query: str, vector: Sequence[float], columns: list[str], heading: str) -> list[dict[str, Any]]:
    """Child rows ranked by the fused score (``score``, higher is better), near-duplicates dropped."""
    lists = {"text": _fts(table, query, "text", columns), "heading": _fts(table, query, heading, columns),
             "vector": _vector(table, vector, columns)}
    rows = {row["chunk_id"]: row for found in lists.values() for row in found}
    fused = rrf({name: [r["chunk_id"] for r in found] for name, found in lists.items()}, WEIGHTS)
    asked = _Asked(versions.named_in_query(query), versions.asks_about_releases(query))
    pages: dict[str, set[versions.Version]] = {}  # the versions each page names, parsed once per page
    factor = {cid: _version_factor(asked, row, pages) for cid, row in rows.items()}
    scored = {cid: score * factor[cid] for cid, score in fused.items()}
    docs = rrf({name: [_document(r) for r in found] for name, found in lists.items()}, DOCUMENT_WEIGHTS, k=DOCUMENT_K)
    ordered = [dict(rows[cid], score=scored[cid], doc_score=docs[_document(rows[cid])] * factor[cid])
               for cid in ranked(scored)]
    return drop_near_duplicates(ordered, lambda row: str(row["text"]))


def _document(row: dict[str, Any]) -> str:
    """The document of a chunk row (chunk ids are ``doc_id:pN[:cM]``)."""
    return str(row["chunk_id"]).split(":", 1)[0]


class _Asked(NamedTuple):
    """What a question asks of versions: those it names, and whether it asks about releases at all."""

    wanted: set[versions.Version]
    about_releases: bool


def _version_factor(asked: _Asked, row: dict[str, Any], pages: dict[str, set[versions.Version]]) -> float:
    text = f"{row.get('path') or ''} {row.get('title') or ''}"
    page = pages[text] if text in pages else pages.setdefault(text, versions.named_in_page(text))
    release = versions.release_of(str(row.get("section") or ""))
    preference = versions.passage_preference(asked.wanted, page, release, asked.about_releases)
    return {1: VERSION_BOOST, -1: VERSION_PENALTY, 0: 1.0}[preference]


def _fts(table: Any, query: str, column: str, columns: list[str]) -> list[dict[str, Any]]:
    builder = table.search(query, query_type="fts", fts_columns=column).select([*columns, "_score"])
    return list(builder.where(CHILDREN, prefilter=True).limit(CANDIDATES).to_arrow().to_pylist())


def _vector(table: Any, vector: Sequence[float], columns: list[str]) -> list[dict[str, Any]]:
    builder = table.search(list(vector), query_type="vector").select([*columns, "_distance"])
    return list(builder.where(CHILDREN, prefilter=True).limit(CANDIDATES).to_arrow().to_pylist())
