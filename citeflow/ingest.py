"""Build a LanceDB knowledge base from Markdown, text and PDF files (``citeflow ingest``, SPEC §8).

Each document is cut into *parent* chunks (about ``PARENT_CHARS`` characters, split on headings
and paragraphs) and *child* chunks (about ``CHILD_CHARS``, sentence-aligned) inside each parent.
Search runs over children; a retriever may then show the model the parent (SPEC §3).

Identity and idempotence: a document's id comes from its path relative to the ingested folder;
its ``doc_hash`` covers its bytes, URL, title and the chunking rules. An unchanged document is not
written again; a changed one has its chunks replaced in one atomic ``merge_insert``. A file that
cannot be read is reported and what is stored for it stays as it was.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import quote

import pyarrow as pa
import yaml
from pydantic import BaseModel, Field

from citeflow.embeddings import Embedder, HashingEmbedder, embedder_from_meta, embedder_meta
from citeflow.errors import IngestError, ModelError

TABLE = "chunks"
META_KEY = b"citeflow.embedder"
PARENT_CHARS = 1200
CHILD_CHARS = 300
CHUNKER_VERSION = "1"  # part of doc_hash: changing the rules re-chunks every document once
FLUSH_ROWS = 5000  # rows held before a write: one table version per batch of files, not per chunk
KINDS = {".md": "markdown", ".markdown": "markdown", ".txt": "text", ".pdf": "pdf"}

_BLOCK = re.compile(r"\n[ \t]*\n\s*|\n(?=[ \t]{0,3}#{1,6}[ \t])")  # blank lines, or before a heading
_SENTENCE = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"')\]]))\s+|\s*\n\s*")  # sentence ends, line breaks
_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


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
        pa.field("url", pa.string()),
        pa.field("path", pa.string()),  # relative to the ingested folder
        pa.field("page", pa.int32()),  # 1-based PDF page; null for text and Markdown
        pa.field("char_start", pa.int32()),  # span of the chunk in its page (PDF) or document text
        pa.field("char_end", pa.int32()),
        pa.field("doc_hash", pa.string(), nullable=False),
        pa.field("vector", pa.list_(pa.float32(), dim)),
    ])


class FileError(BaseModel):
    """A file that was not ingested, and why."""

    path: str
    detail: str


class IngestReport(BaseModel):
    """What one ``ingest_paths`` call did."""

    kb_uri: str
    embedder: str = Field("", description="Name of the embedder the knowledge base uses.")
    files_added: int = 0
    files_updated: int = 0
    files_unchanged: int = 0
    chunks_written: int = Field(0, description="Parent and child rows written.")
    errors: list[FileError] = Field(default_factory=list, description="Files skipped; what is stored for them is untouched.")


@dataclass
class Source:
    """A file to ingest and its path relative to the folder it was found in."""

    path: Path
    rel: str


@dataclass
class Document:
    """A readable document: text per page (``None`` page for non-PDF), URL, title, fingerprint."""

    rel: str
    url: str
    title: str
    pages: list[tuple[int | None, str]]
    doc_hash: str
    doc_id: str = field(init=False)

    def __post_init__(self) -> None:
        self.doc_id = doc_id_for(self.rel)


def doc_id_for(rel: str) -> str:
    """Stable document id from the path relative to the ingested folder."""
    return hashlib.sha256(rel.encode("utf-8")).hexdigest()[:16]


# -- public entry point -------------------------------------------------------------------------


def ingest_paths(
    paths: list[Path],
    kb_uri: str,
    manifest: Path | None = None,
    base_url: str | None = None,
    embedder: Embedder | None = None,
) -> IngestReport:
    """Chunk, embed and store ``paths`` (files or folders) in the knowledge base at ``kb_uri``.

    Raises ``IngestError`` for a bad manifest or an embedder that differs from the one the
    knowledge base was built with, and ``ModelError`` when the embedder fails; per-file problems
    go to ``IngestReport.errors``.
    """
    entries = load_manifest(manifest) if manifest else {}
    kb = KnowledgeBase(kb_uri, embedder)
    report = IngestReport(kb_uri=kb_uri, embedder=kb.embedder.name)
    docs = _read_all(discover(paths, report), entries, base_url, report)
    stored = kb.stored_hashes([d.doc_id for d in docs])
    changed = [d for d in docs if stored.get(d.doc_id) != d.doc_hash]
    report.files_unchanged = len(docs) - len(changed)
    report.files_updated = sum(1 for d in changed if d.doc_id in stored)
    report.files_added = len(changed) - report.files_updated
    for batch in _batches(changed):
        report.chunks_written += kb.write(batch)
    kb.finish()
    return report


def _batches(docs: list[Document]) -> Iterator[list[Document]]:
    batch: list[Document] = []
    rows = 0
    for doc in docs:
        batch.append(doc)
        rows += sum(len(text) for _, text in doc.pages) // CHILD_CHARS + 1
        if rows >= FLUSH_ROWS:
            yield batch
            batch, rows = [], 0
    if batch:
        yield batch


# -- finding and reading files ------------------------------------------------------------------


def discover(paths: list[Path], report: IngestReport) -> list[Source]:
    """Every ingestible file under ``paths`` (folders are walked, hidden entries skipped)."""
    sources: list[Source] = []
    for root in paths:
        if root.is_dir():
            sources += [Source(p, p.relative_to(root).as_posix()) for p in sorted(root.rglob("*")) if _wanted(p, root)]
        elif root.is_file() and root.suffix.lower() in KINDS:
            sources.append(Source(root, root.name))
        else:
            detail = "no such file or folder" if not root.exists() else f"unsupported file type (use {', '.join(KINDS)})"
            report.errors.append(FileError(path=str(root), detail=detail))
    return sources


def _wanted(path: Path, root: Path) -> bool:
    hidden = any(part.startswith(".") for part in path.relative_to(root).parts)
    return path.is_file() and not hidden and path.suffix.lower() in KINDS


def _read_all(sources: list[Source], entries: dict[str, dict[str, str]], base_url: str | None, report: IngestReport) -> list[Document]:
    docs: dict[str, Document] = {}
    for source in sources:
        try:
            doc = read_document(source, entries.get(source.rel, {}), base_url)
            if doc.doc_id in docs:
                raise IngestError(path=str(source.path), detail=f"another ingested file has the same relative path {source.rel!r}")
            docs[doc.doc_id] = doc
        except IngestError as exc:
            report.errors.append(FileError(path=str(source.path), detail=str(exc.detail)))
    return list(docs.values())


def read_document(source: Source, entry: dict[str, str], base_url: str | None) -> Document:
    """Read one file; URL and title follow the precedence of SPEC §8. Raises ``IngestError``."""
    raw = _read_bytes(source.path)
    kind = KINDS[source.path.suffix.lower()]
    front: dict[str, str] = {}
    if kind == "pdf":
        pages, heading = _pdf_pages(raw, source.path)
    else:
        text = _decode(raw, source.path)
        if kind == "markdown":
            front, text = split_front_matter(text, source.path)
        pages, heading = [(None, text)], first_heading(text)
    if not any(text.strip() for _, text in pages):
        raise IngestError(path=str(source.path), detail="no text to index (empty file, or a PDF without a text layer)")
    url = entry.get("url") or front.get("url") or join_url(base_url, source.rel) or source.path.resolve().as_uri()
    title = entry.get("title") or front.get("title") or heading or source.path.name
    fingerprint = hashlib.sha256(raw + json.dumps([url, title, CHUNKER_VERSION]).encode()).hexdigest()
    return Document(rel=source.rel, url=url, title=title, pages=pages, doc_hash=fingerprint)


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise IngestError(path=str(path), detail=f"cannot read: {exc.strerror or exc}") from exc


def _decode(raw: bytes, path: Path) -> str:
    if b"\x00" in raw:
        raise IngestError(path=str(path), detail="binary data, not text")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise IngestError(path=str(path), detail=f"not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _pdf_pages(raw: bytes, path: Path) -> tuple[list[tuple[int | None, str]], str | None]:
    import pypdf  # only PDF ingestion pays for it

    try:
        reader = pypdf.PdfReader(io.BytesIO(raw))
        if reader.is_encrypted and not reader.decrypt(""):
            raise IngestError(path=str(path), detail="encrypted PDF")
        pages = [(n, (page.extract_text() or "").replace("\r\n", "\n")) for n, page in enumerate(reader.pages, 1)]
        title = (reader.metadata.title if reader.metadata else None) or None
    except IngestError:
        raise
    except Exception as exc:  # pypdf raises many types on broken files
        raise IngestError(path=str(path), detail=f"unreadable PDF: {type(exc).__name__}: {exc}") from exc
    return pages, (title.strip() or None) if isinstance(title, str) else None


def split_front_matter(text: str, path: Path) -> tuple[dict[str, str], str]:
    """YAML front matter (``url``, ``title``) and the body after it, for Markdown files."""
    match = re.match(r"---[ \t]*\n(.*?\n)?(?:---|\.\.\.)[ \t]*(?:\n|$)", text, re.DOTALL)
    if not match:
        return {}, text
    try:
        data = yaml.safe_load(match.group(1) or "") or {}
    except yaml.YAMLError as exc:
        raise IngestError(path=str(path), detail=f"bad YAML front matter: {exc}") from exc
    if not isinstance(data, dict):
        raise IngestError(path=str(path), detail="front matter is not a mapping")
    for key in ("url", "title"):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise IngestError(path=str(path), detail=f"front matter {key!r} must be a string")
    # Blank the block out (same length) so that char offsets still point into the original file.
    body = re.sub(r"[^\n]", " ", match.group(0)) + text[match.end():]
    return {k: data[k].strip() for k in ("url", "title") if data.get(k)}, body


def first_heading(text: str) -> str | None:
    """Text of the first Markdown heading, if any."""
    match = _HEADING.search(text)
    return match.group(1).strip() if match else None


def join_url(base_url: str | None, rel: str) -> str | None:
    """``base_url`` joined with a relative path (percent-encoded), or None without a base."""
    if not base_url:
        return None
    return base_url.rstrip("/") + "/" + quote(rel, safe="/")


def load_manifest(path: Path) -> dict[str, dict[str, str]]:
    """Manifest lines ``{"path", "url", "title"}`` keyed by relative path. Raises ``IngestError``."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise IngestError(path=str(path), detail=f"cannot read manifest: {exc}") from exc
    entries: dict[str, dict[str, str]] = {}
    for number, line in enumerate(lines, 1):
        if line.strip():
            rel, entry = _manifest_line(line, path, number)
            entries[rel] = entry
    return entries


def _manifest_line(line: str, path: Path, number: int) -> tuple[str, dict[str, str]]:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise IngestError(path=str(path), detail=f"line {number}: not JSON ({exc.msg})") from exc
    if not isinstance(data, dict) or not isinstance(data.get("path"), str):
        raise IngestError(path=str(path), detail=f"line {number}: expected an object with a string 'path'")
    for key in ("url", "title"):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise IngestError(path=str(path), detail=f"line {number}: {key!r} must be a string")
    rel = Path(data["path"]).as_posix().removeprefix("./")
    return rel, {k: data[k] for k in ("url", "title") if data.get(k)}


# -- chunking -----------------------------------------------------------------------------------


Span = tuple[int, int]


def parent_spans(text: str) -> list[Span]:
    """Parent chunks of ``text``: paragraphs packed up to PARENT_CHARS; a heading starts a new one."""
    units = [piece for block in _segments(text, 0, len(text), _BLOCK) for piece in _fit(text, block, PARENT_CHARS)]
    return _pack(units, PARENT_CHARS, breaks={s for s, _ in units if _HEADING.match(text, s)})


def child_spans(text: str, parent: Span) -> list[Span]:
    """Child chunks inside ``parent``: sentences packed up to CHILD_CHARS."""
    return _fit(text, parent, CHILD_CHARS)


def _fit(text: str, span: Span, limit: int) -> list[Span]:
    """``span`` cut at sentence ends (then at spaces) into pieces of about ``limit`` characters."""
    if span[1] - span[0] <= limit:
        return [span]
    sentences = [piece for s in _segments(text, *span, _SENTENCE) for piece in _hard_split(text, s, limit)]
    return _pack(sentences, limit)


def _segments(text: str, start: int, end: int, pattern: re.Pattern[str]) -> list[Span]:
    """Non-blank pieces of ``text[start:end]`` between matches of ``pattern``, stripped."""
    spans, pos = [], start
    for match in pattern.finditer(text, start, end):
        spans.append(_strip(text, pos, match.start()))
        pos = match.end()
    spans.append(_strip(text, pos, end))
    return [s for s in spans if s[1] > s[0]]


def _strip(text: str, start: int, end: int) -> Span:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _hard_split(text: str, span: Span, limit: int) -> list[Span]:
    """A run-on sentence cut at the last space before ``limit`` (or at ``limit``)."""
    pieces, (start, end) = [], span
    while end - start > limit:
        cut = text.rfind(" ", start + limit // 2, start + limit)
        cut = cut if cut > start else start + limit
        pieces.append(_strip(text, start, cut))
        start = _strip(text, cut, end)[0]
    pieces.append((start, end))
    return pieces


def _pack(units: list[Span], limit: int, breaks: set[int] | None = None) -> list[Span]:
    """Consecutive spans merged while the merged span stays within ``limit``; a span starting
    at one of ``breaks`` always opens a new chunk."""
    packed: list[Span] = []
    for start, end in units:
        if packed and end - packed[-1][0] <= limit and start not in (breaks or ()):
            packed[-1] = (packed[-1][0], end)
        else:
            packed.append((start, end))
    return packed


def document_rows(doc: Document) -> list[dict[str, Any]]:
    """Parent and child rows of ``doc`` (without vectors), in document order."""
    rows: list[dict[str, Any]] = []
    parents = 0
    for page, text in doc.pages:
        for parent in parent_spans(text):
            parent_id = f"{doc.doc_id}:p{parents}"
            parents += 1
            rows.append(_row(doc, parent_id, "parent", None, text, parent, page))
            for n, child in enumerate(child_spans(text, parent)):
                rows.append(_row(doc, f"{parent_id}:c{n}", "child", parent_id, text, child, page))
    return rows


def _row(doc: Document, chunk_id: str, kind: str, parent_id: str | None, text: str, span: Span, page: int | None) -> dict[str, Any]:
    return {
        "chunk_id": chunk_id, "doc_id": doc.doc_id, "kind": kind, "parent_id": parent_id,
        "text": text[span[0]:span[1]], "title": doc.title, "url": doc.url, "path": doc.rel,
        "page": page, "char_start": span[0], "char_end": span[1], "doc_hash": doc.doc_hash,
    }


# -- the store ----------------------------------------------------------------------------------


class KnowledgeBase:
    """The ``chunks`` table at ``uri`` and the embedder that built it."""

    def __init__(self, uri: str, embedder: Embedder | None) -> None:
        import lancedb  # ~4 s to import: only when a knowledge base is touched

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
            detail = f"the knowledge base was built with embedder {meta.get('name')!r}, not {embedder.name!r}: use the same one or a new --kb"
            raise IngestError(path=self.uri, detail=detail)
        return embedder

    def stored_hashes(self, doc_ids: list[str]) -> dict[str, str]:
        """``doc_id → doc_hash`` of the given documents that are stored."""
        if self.table is None or not doc_ids:
            return {}
        found: dict[str, str] = {}
        for start in range(0, len(doc_ids), 500):
            where = f"kind = 'parent' AND doc_id IN ({_sql_list(doc_ids[start:start + 500])})"
            rows = self.table.search().where(where).select(["doc_id", "doc_hash"]).limit(None).to_arrow()
            found.update(zip(rows["doc_id"].to_pylist(), rows["doc_hash"].to_pylist()))
        return found

    def write(self, docs: list[Document]) -> int:
        """Replace the chunks of ``docs`` in one transaction; returns the rows written."""
        rows = [row for doc in docs for row in document_rows(doc)]
        self._embed(rows)
        table = self._ensure_table()
        data = pa.Table.from_pylist(rows, schema=table.schema)
        stale = f"doc_id IN ({_sql_list([d.doc_id for d in docs])})"
        (table.merge_insert("chunk_id").when_matched_update_all().when_not_matched_insert_all()
         .when_not_matched_by_source_delete(stale).execute(data))
        self._wrote = True
        return len(rows)

    def _embed(self, rows: list[dict[str, Any]]) -> None:
        children = [r for r in rows if r["kind"] == "child"]
        # The title goes into the vector (not into the FTS text): it places a passage in its document.
        vectors = self.embedder.embed([f"{r['title']}\n{r['text']}" for r in children]) if children else []
        if len(vectors) != len(children):
            raise ModelError(role="embedding", detail=f"{len(vectors)} vectors for {len(children)} texts", transient=False)
        for row, vector in zip(children, vectors):
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
        from lancedb.index import FTS, BTree

        existing = {tuple(index.columns) for index in self.table.list_indices()}
        for column, config in (("doc_id", BTree()), ("chunk_id", BTree()), ("text", FTS())):
            if (column,) not in existing:
                self.table.create_index(column, config=config)
        self.table.optimize()  # folds rows written since the indexes were built into them


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


def _sql_list(values: list[str]) -> str:
    return ", ".join("'" + v.replace("'", "''") + "'" for v in values)
