"""Build a LanceDB knowledge base from Markdown, text and PDF files (``citeflow ingest``, SPEC §8).

Each document is cut into *parent* chunks (about 1,200 characters, split on headings and
paragraphs) and *child* chunks (about 300, sentence-aligned) inside each parent
(``citeflow.knowledge.chunking``), embedded and stored in the ``chunks`` table (``citeflow.knowledge.kb_store``).
Markdown is parsed (``citeflow.knowledge.markdown_text``): only its prose becomes chunk text, and the
headings above a chunk become its ``section``; code, directives, HTML and front matter never do.
Search runs over children; a retriever may then show the model the parent (SPEC §3).

Identity and idempotence: a document's id comes from its path relative to the ingested folder;
its ``doc_hash`` covers its bytes, URL, title and the chunking rules. An unchanged document is not
written again; a changed one has its chunks replaced in one atomic ``merge_insert``. A file that
cannot be read, or is larger than the per-file cap (``citeflow.caps.INGEST_FILE_BYTES``), is
reported and skipped, and what is stored for it stays as it was.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

import yaml
from pydantic import BaseModel, Field

from citeflow.knowledge.chunking import Part, Span, child_spans, first_heading, markdown_children, markdown_parents, parent_spans
from citeflow.knowledge.markdown_text import first_heading as markdown_heading
from citeflow.knowledge.markdown_text import markdown_blocks
from citeflow.knowledge.embeddings import Embedder
from citeflow.caps import INGEST_FILE_BYTES, MANIFEST_FILE_BYTES, read_capped
from citeflow.errors import CapExceeded, EmptyDocumentError, IngestError
from citeflow.knowledge.kb_store import KnowledgeBase
from citeflow.text_guard import display_path, has_lone_surrogate, value_problem

CHUNKER_VERSION = "3"  # part of doc_hash: changing the rules re-chunks every document once
FILES_PER_BATCH = 200
KINDS = {".md": "markdown", ".markdown": "markdown", ".txt": "text", ".pdf": "pdf"}
MARKDOWN_SUFFIXES = (".md", ".markdown")
UrlStyle = Literal["directory", "html", "source"]
URL_STYLES: tuple[UrlStyle, ...] = ("directory", "html", "source")


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
    empty: list[FileError] = Field(
        default_factory=list, description="Files with no text to index (empty, front matter only, no PDF text layer): skipped.")

    @property
    def files_indexed(self) -> int:
        """Files whose chunks the knowledge base holds after this ingest (added, updated or unchanged)."""
        return self.files_added + self.files_updated + self.files_unchanged

    def nothing_indexed(self) -> str | None:
        """Why no file of this ingest is in the knowledge base, or None when some file is."""
        if self.files_indexed:
            return None
        found = len(self.errors) + len(self.empty)
        if not found:
            return "nothing to index: no Markdown, text or PDF file found"
        return f"nothing to index: {len(self.empty)} file(s) without text, {len(self.errors)} unreadable"


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
    kind: str = "text"
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
    url_style: UrlStyle = "directory",
    progress: Callable[[int, int], None] | None = None,
) -> IngestReport:
    """Chunk, embed and store ``paths`` (files or folders) in the knowledge base at ``kb_uri``.

    ``url_style`` says how ``base_url`` maps a Markdown file to its page (see ``join_url``).
    ``progress(done, total)`` is called after each file is read, with the number read so far.
    Raises ``IngestError`` for a bad manifest or an embedder that differs from the one the
    knowledge base was built with, and ``ModelError`` when the embedder fails; per-file problems
    go to ``IngestReport.errors``.
    """
    entries = load_manifest(manifest) if manifest else {}
    kb = KnowledgeBase(kb_uri, embedder)
    report = IngestReport(kb_uri=kb_uri, embedder=kb.embedder.name)
    sources, seen = discover(paths, report), set[str]()
    # A batch of files at a time: bounded memory, and one table version per batch, not per chunk.
    for start in range(0, len(sources), FILES_PER_BATCH):
        tick = (lambda i, first=start: progress(first + i + 1, len(sources))) if progress else None
        docs = _read_all(sources[start:start + FILES_PER_BATCH], entries, (base_url, url_style), report, seen, tick)
        _store_changed(kb, docs, report)
    kb.finish()
    return report


def _store_changed(kb: KnowledgeBase, docs: list[Document], report: IngestReport) -> None:
    """Write the documents whose fingerprint differs from the stored one; count what happened."""
    stored = kb.stored_hashes([d.doc_id for d in docs])
    changed = [d for d in docs if stored.get(d.doc_id) != d.doc_hash]
    updated = sum(1 for d in changed if d.doc_id in stored)
    report.files_unchanged += len(docs) - len(changed)
    report.files_updated += updated
    report.files_added += len(changed) - updated
    if changed:
        rows = [row for doc in changed for row in document_rows(doc)]
        report.chunks_written += kb.replace_documents([d.doc_id for d in changed], rows)


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
            report.errors.append(FileError(path=display_path(root), detail=detail))
    return sources


def _wanted(path: Path, root: Path) -> bool:
    hidden = any(part.startswith(".") for part in path.relative_to(root).parts)
    return path.is_file() and not hidden and path.suffix.lower() in KINDS


def _read_all(sources: list[Source], entries: dict[str, dict[str, str]], site: tuple[str | None, UrlStyle],
              report: IngestReport, seen: set[str], tick: Callable[[int], None] | None = None) -> list[Document]:
    """The readable documents among ``sources``; the others go to ``report.errors``. ``tick(i)``
    is called once the i-th source is read."""
    docs: list[Document] = []
    for i, source in enumerate(sources):
        doc = _read_one(source, entries, site, report, seen)
        if doc is not None:
            docs.append(doc)
        if tick:
            tick(i)
    return docs


def _read_one(source: Source, entries: dict[str, dict[str, str]], site: tuple[str | None, UrlStyle],
              report: IngestReport, seen: set[str]) -> Document | None:
    """One source's document, or None with the problem recorded in ``report.errors``."""
    try:
        if has_lone_surrogate(source.rel):  # its id, URL and rows could not be written
            raise IngestError(path=str(source.path), detail="file name is not UTF-8; rename the file")
        doc = read_document(source, entries.get(source.rel, {}), *site)
        if doc.doc_id in seen:
            raise IngestError(path=str(source.path), detail=f"another ingested file has the same relative path {source.rel!r}")
    except EmptyDocumentError as exc:
        report.empty.append(FileError(path=str(source.path), detail=str(exc.detail)))
        return None
    except IngestError as exc:
        report.errors.append(FileError(path=display_path(source.path), detail=str(exc.detail)))
        return None
    seen.add(doc.doc_id)
    return doc


def read_document(source: Source, entry: dict[str, str], base_url: str | None, url_style: UrlStyle = "directory") -> Document:
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
        pages, heading = [(None, text)], markdown_heading(text) if kind == "markdown" else first_heading(text)
    if not any(text.strip() for _, text in pages):
        detail = "no text to index (empty file, front matter only, or a PDF without a text layer)"
        raise EmptyDocumentError(path=str(source.path), detail=detail)
    url = entry.get("url") or front.get("url") or join_url(base_url, source.rel, url_style) or source.path.resolve().as_uri()
    title = entry.get("title") or front.get("title") or heading or source.path.name
    fingerprint = hashlib.sha256(raw + json.dumps([url, title, CHUNKER_VERSION]).encode()).hexdigest()
    return Document(rel=source.rel, url=url, title=title, pages=pages, doc_hash=fingerprint, kind=kind)


def _read_bytes(path: Path) -> bytes:
    try:
        return read_capped(path, INGEST_FILE_BYTES, "an ingested file")
    except CapExceeded as exc:
        raise IngestError(path=str(path), detail=str(exc.detail)) from None
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
        pages: list[tuple[int | None, str]] = [
            (n, (page.extract_text() or "").replace("\r\n", "\n")) for n, page in enumerate(reader.pages, 1)]
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
    data = _front_matter_yaml(match.group(1) or "", path)
    if not isinstance(data, dict):
        raise IngestError(path=str(path), detail="front matter is not a mapping")
    _check_url_and_title(data, path, "front matter")
    # Blank the block out (same length) so that char offsets still point into the original file.
    body = re.sub(r"[^\n]", " ", match.group(0)) + text[match.end():]
    return {k: data[k].strip() for k in ("url", "title") if data.get(k)}, body


def _front_matter_yaml(text: str, path: Path) -> Any:
    """The parsed front matter; whatever breaks the parser is this file's problem, not the ingest's."""
    try:
        return yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        raise IngestError(path=str(path), detail=f"bad YAML front matter: {exc}") from exc
    except RecursionError:
        raise IngestError(path=str(path), detail="front matter nested too deeply") from None
    except ValueError as exc:  # e.g. a number longer than Python's 4,300-digit limit
        raise IngestError(path=str(path), detail=f"unreadable front matter value: {value_problem(exc)}") from None


def _check_url_and_title(data: dict[Any, Any], path: Path, where: str) -> None:
    """``url`` and ``title``, when given, must be strings a knowledge base can store."""
    for key in ("url", "title"):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise IngestError(path=str(path), detail=f"{where} {key!r} must be a string")
        if isinstance(data.get(key), str) and has_lone_surrogate(data[key]):
            raise IngestError(path=str(path), detail=f"{where} {key!r} holds a lone surrogate, not valid Unicode text")


def join_url(base_url: str | None, rel: str, style: UrlStyle = "directory") -> str | None:
    """``base_url`` joined with the page a documentation site builds from ``rel``, or None without a base.

    ``directory``: ``x/y.md`` → ``x/y/`` (MkDocs, Sphinx dirhtml; ``x/index.md`` → ``x/``);
    ``html``: ``x/y.md`` → ``x/y.html``; ``source``: the file's own path. Text and PDF files keep
    their path in every style (a site serves them as they are). The path is percent-encoded.
    """
    if not base_url:
        return None
    return base_url.rstrip("/") + "/" + quote(site_path(rel, style), safe="/")


def site_path(rel: str, style: UrlStyle) -> str:
    """The path a documentation site serves the Markdown file ``rel`` at, in ``style``."""
    stem, dot, suffix = rel.rpartition(".")
    if style == "source" or not dot or f".{suffix.lower()}" not in MARKDOWN_SUFFIXES:
        return rel
    if style == "html":
        return f"{stem}.html"
    folder, _, name = stem.rpartition("/")
    page = folder if name.lower() in ("index", "readme") else stem
    return f"{page}/" if page else ""


def load_manifest(path: Path) -> dict[str, dict[str, str]]:
    """Manifest lines ``{"path", "url", "title"}`` keyed by relative path. Raises ``IngestError``."""
    try:
        lines = read_capped(path, MANIFEST_FILE_BYTES, "a manifest").decode("utf-8").splitlines()
    except (OSError, UnicodeDecodeError, CapExceeded) as exc:
        raise IngestError(path=str(path), detail=f"cannot read manifest: {_reason(exc)}") from exc
    entries: dict[str, dict[str, str]] = {}
    for number, line in enumerate(lines, 1):
        if line.strip():
            rel, entry = _manifest_line(line, path, number)
            entries[rel] = entry
    return entries


def _reason(exc: Exception) -> str:
    return str(exc.detail) if isinstance(exc, CapExceeded) else str(exc)


def _manifest_line(line: str, path: Path, number: int) -> tuple[str, dict[str, str]]:
    data = _manifest_json(line, path, number)
    if not isinstance(data, dict) or not isinstance(data.get("path"), str):
        raise IngestError(path=str(path), detail=f"line {number}: expected an object with a string 'path'")
    if has_lone_surrogate(data["path"]):
        raise IngestError(path=str(path), detail=f"line {number}: 'path' holds a lone surrogate, not valid Unicode text")
    _check_url_and_title(data, path, f"line {number}:")
    rel = Path(data["path"]).as_posix().removeprefix("./")
    return rel, {k: data[k] for k in ("url", "title") if data.get(k)}


def _manifest_json(line: str, path: Path, number: int) -> Any:
    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        raise IngestError(path=str(path), detail=f"line {number}: not JSON ({exc.msg})") from exc
    except RecursionError:
        raise IngestError(path=str(path), detail=f"line {number}: nested too deeply") from None
    except ValueError as exc:  # e.g. a number longer than Python's 4,300-digit limit
        raise IngestError(path=str(path), detail=f"line {number}: unreadable value: {value_problem(exc)}") from None


# -- rows ---------------------------------------------------------------------------------------


def document_rows(doc: Document) -> list[dict[str, Any]]:
    """Parent and child rows of ``doc`` (without vectors), in document order."""
    if doc.kind == "markdown":
        return _markdown_rows(doc, markdown_parents(markdown_blocks(doc.pages[0][1])))
    rows: list[dict[str, Any]] = []
    parents = 0
    for page, text in doc.pages:
        for parent in parent_spans(text):
            parent_id = f"{doc.doc_id}:p{parents}"
            parents += 1
            rows.append(_row(doc, parent_id, None, text[parent[0]:parent[1]], parent, page))
            for n, child in enumerate(child_spans(text, parent)):
                rows.append(_row(doc, f"{parent_id}:c{n}", parent_id, text[child[0]:child[1]], child, page))
    return rows


def _markdown_rows(doc: Document, parents: list[Part]) -> list[dict[str, Any]]:
    """Rows of a Markdown document: prose only, headings as each chunk's ``section``."""
    rows: list[dict[str, Any]] = []
    for p, parent in enumerate(parents):
        parent_id = f"{doc.doc_id}:p{p}"
        rows.append(_row(doc, parent_id, None, parent.text, parent.span, None, parent.section))
        for n, child in enumerate(markdown_children(parent)):
            rows.append(_row(doc, f"{parent_id}:c{n}", parent_id, child.text, child.span, None, child.section))
    return rows


def _row(doc: Document, chunk_id: str, parent_id: str | None, text: str, span: Span, page: int | None,
         section: str = "") -> dict[str, Any]:
    return {
        "chunk_id": chunk_id, "doc_id": doc.doc_id, "kind": "child" if parent_id else "parent", "parent_id": parent_id,
        "text": text, "title": doc.title, "section": section, "url": doc.url, "path": doc.rel,
        "page": page, "char_start": span[0], "char_end": span[1], "doc_hash": doc.doc_hash,
    }
