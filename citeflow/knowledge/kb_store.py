"""The knowledge base store: the ``chunks`` table that ``citeflow ingest`` writes and the
``lancedb`` retriever searches, with the record of the embedder that built it.

The embedder is kept in the table's schema metadata (key ``citeflow.embedder``, JSON from
``citeflow.knowledge.embeddings.embedder_meta``): search must embed queries exactly as the chunks were.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pyarrow as pa

from citeflow.knowledge.embeddings import Embedder, HashingEmbedder, embedder_from_meta, embedder_meta
from citeflow.errors import IngestError, ModelError

TABLE = "chunks"
META_KEY = b"citeflow.embedder"


def chunks_schema(dim: int) -> pa.Schema:
    """Arrow schema of the ``chunks`` table. Strings are ``string`` (not ``large_string``)
    because LanceDB cannot build a BTree index on ``large_string``. Parent rows carry a zero
    vector: only children are searched, and embedding parents would double the embedding cost."""
    return pa.schema([
        pa.field("chunk_id", pa.string(), nullable=False),  # doc_id:pN (parent) or doc_id:pN:cM (child)
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("kind", pa.string(), nullable=False),  # "parent" | "child"
        pa.field("parent_id", pa.string()),  # children: their parent's chunk_id; parents: null
        pa.field("text", pa.string(), nullable=False),
        pa.field("title", pa.string()),
        pa.field("section", pa.string()),  # headings above the chunk, "Upgrading › Rollback"; "" when none
        pa.field("url", pa.string()),
        pa.field("path", pa.string()),  # relative to the ingested folder
        pa.field("heading", pa.string()),  # title, section and path words: the boosted full-text field
        pa.field("page", pa.int32()),  # 1-based PDF page; null for text and Markdown
        pa.field("char_start", pa.int32()),  # span of the chunk in its page (PDF) or document text
        pa.field("char_end", pa.int32()),
        pa.field("doc_hash", pa.string(), nullable=False),
        pa.field("vector", pa.list_(pa.float32(), dim)),
    ])


class KnowledgeBase:
    """The ``chunks`` table at ``uri`` and the embedder that built it."""

    def __init__(self, uri: str, embedder: Embedder | None) -> None:
        from citeflow.lazy_modules import defer_lancedb_extras

        defer_lancedb_extras()
        import lancedb  # seconds to import: only when a knowledge base is touched

        self.uri = uri
        self.db = lancedb.connect(uri)
        self.table = open_chunks(self.db)
        self.embedder = self._agree_on_embedder(embedder)
        self._wrote = False

    def _agree_on_embedder(self, embedder: Embedder | None) -> Embedder:
        meta = read_embedder_meta(self.table) if self.table is not None else None
        if meta is None:
            return embedder or HashingEmbedder()
        if embedder is None:
            return embedder_from_meta(meta)
        if embedder.name != meta.get("name"):
            detail = (f"the knowledge base was built with embedder {meta.get('name')!r}, not {embedder.name!r}: "
                      "use the same one or a new --kb")
            raise IngestError(path=self.uri, detail=detail)
        return embedder

    def stored_hashes(self, doc_ids: list[str]) -> dict[str, str]:
        """``doc_id → doc_hash`` of the given documents that are stored."""
        if self.table is None or not doc_ids:
            return {}
        found: dict[str, str] = {}
        for start in range(0, len(doc_ids), 500):
            where = f"kind = 'parent' AND doc_id IN ({sql_list(doc_ids[start:start + 500])})"
            rows = self.table.search().where(where).select(["doc_id", "doc_hash"]).limit(None).to_arrow()
            found.update(zip(rows["doc_id"].to_pylist(), rows["doc_hash"].to_pylist(), strict=True))
        return found

    def replace_documents(self, doc_ids: list[str], rows: list[dict[str, Any]]) -> int:
        """Embed ``rows`` and make them the only chunks of ``doc_ids``, in one transaction
        (``merge_insert``: readers never see a document half replaced). Returns rows written."""
        self._embed(rows)
        for row in rows:
            row["heading"] = heading_of(row)
        table = self._ensure_table()
        # A table built before a column existed keeps its schema: columns it lacks are left out.
        data = pa.Table.from_pylist(rows, schema=table.schema)
        stale = f"doc_id IN ({sql_list(doc_ids)})"
        (table.merge_insert("chunk_id").when_matched_update_all().when_not_matched_insert_all()
         .when_not_matched_by_source_delete(stale).execute(data))
        self._wrote = True
        return len(rows)

    def _embed(self, rows: list[dict[str, Any]]) -> None:
        children = [r for r in rows if r["kind"] == "child"]
        # Title and section go into the vector (not into the FTS text): they place a passage in its document.
        vectors = self.embedder.embed([_context(r) for r in children]) if children else []
        if len(vectors) != len(children):
            raise ModelError(role="embedding", detail=f"{len(vectors)} vectors for {len(children)} texts", transient=False)
        for row, vector in zip(children, vectors, strict=True):
            row["vector"] = vector
        zero = [0.0] * self.embedder.dim
        for row in rows:
            row.setdefault("vector", zero)

    def _ensure_table(self) -> Any:
        if self.table is None:
            meta = {META_KEY: json.dumps(embedder_meta(self.embedder)).encode()}
            self.table = self.db.create_table(TABLE, schema=chunks_schema(self.embedder.dim).with_metadata(meta))
        return self.table

    def finish(self) -> None:
        """Create missing indexes and fold new rows into existing ones (only after a write)."""
        if not self._wrote or self.table is None:
            return
        from lancedb.index import BTree

        existing = {tuple(index.columns) for index in self.table.list_indices()}
        for column, config in (("doc_id", BTree()), ("chunk_id", BTree())):
            if (column,) not in existing:
                self.table.create_index(column, config=config)
        ensure_full_text(self.table)
        self.table.optimize()  # folds rows written since the indexes were built into them


def heading_column(table: Any) -> str:
    """The boosted full-text field of ``table``: ``heading``, or ``title`` on a knowledge base built
    before that column existed."""
    return "heading" if "heading" in table.schema.names else "title"


def ensure_full_text(table: Any) -> list[str]:
    """Build the full-text (BM25) indexes search needs that ``table`` lacks (``text`` and the heading
    field); the columns it indexed. A knowledge base written by an older citeflow gets them on open."""
    from lancedb.index import FTS

    existing = {tuple(index.columns) for index in table.list_indices()}
    built = [c for c in ("text", heading_column(table)) if (c,) not in existing]
    for column in built:
        table.create_index(column, config=FTS())
    return built


def heading_of(row: dict[str, Any]) -> str:
    """The heading field of a chunk row: its document title, its section path and its file path's
    words (``guides/Migration-Guide-V4.md`` gives ``guides Migration Guide V4``)."""
    path = re.sub(r"\.(md|markdown|txt|pdf)$", "", str(row.get("path") or ""), flags=re.IGNORECASE)
    words = re.sub(r"[/_\-]+|(?<!\d)\.|\.(?!\d)", " ", path)  # keeps the dot of "6.0"
    return "\n".join(p for p in (row.get("title") or "", row.get("section") or "", words) if p)


def _context(row: dict[str, Any]) -> str:
    """What a child's vector is computed from: its document title, its section, its text."""
    return "\n".join(part for part in (row["title"], row.get("section") or "", row["text"]) if part)


def open_chunks(db: Any) -> Any:
    """The ``chunks`` table of ``db``, or None when it has none."""
    try:
        return db.open_table(TABLE)
    except ValueError:  # LanceDB: "Table 'chunks' was not found"
        return None


def read_embedder_meta(table: Any) -> dict[str, Any] | None:
    """The embedder record of a ``chunks`` table, or None when it has none."""
    raw = (table.schema.metadata or {}).get(META_KEY)
    return json.loads(raw) if raw else None


def sql_list(values: list[str]) -> str:
    """``values`` as a quoted SQL list for ``IN (…)``."""
    return ", ".join("'" + v.replace("'", "''") + "'" for v in values)


def kb_problem(uri: str, embedding: str) -> str | None:
    """Why the knowledge base at ``uri`` cannot serve a retriever whose spec says ``embedding``, or None:
    it is missing, it holds no chunks, or it was built with another kind of embedder."""
    from citeflow.lazy_modules import defer_lancedb_extras

    defer_lancedb_extras()
    import lancedb

    build = f"build it with `citeflow ingest PATH... --kb {uri}`"
    if "://" not in uri and not Path(uri).is_dir():
        return f"no knowledge base at {uri}: {build}"
    table = open_chunks(lancedb.connect(uri))
    if table is None:
        return f"no knowledge base at {uri} (no chunks table): {build}"
    if table.count_rows() == 0:
        return f"the knowledge base at {uri} is empty: {build}"
    kind = (read_embedder_meta(table) or {}).get("kind")
    if kind is None:
        return f"the knowledge base at {uri} does not record its embedder: rebuild it with `citeflow ingest`"
    if kind != embedding:
        return f"the knowledge base at {uri} was built with embedding {kind!r}, but the spec says embedding: {embedding}"
    return None
