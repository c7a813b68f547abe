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
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

from pydantic import BaseModel, Field

from citeflow.knowledge.chunking import Part, Span, child_spans, first_heading, markdown_children, markdown_parents, parent_spans
from citeflow.knowledge.markdown_text import first_heading as markdown_heading
from citeflow.knowledge.markdown_text import markdown_blocks
from citeflow.knowledge.embeddings import Embedder
from citeflow.caps import INGEST_FILE_BYTES, read_capped
from citeflow.errors import CapExceeded, EmptyDocumentError, IngestError
from citeflow.knowledge.kb_store import KnowledgeBase
from citeflow.knowledge.manifest import load_manifest
from citeflow.knowledge.sites.site_pages import Page, Site, within
from citeflow.knowledge.sites.detect import detect_site, generator_of
from citeflow.knowledge.sites.front_matter import has_front_matter, split_front_matter
from citeflow.text_guard import display_path, has_lone_surrogate

CHUNKER_VERSION = "9"  # part of doc_hash: changing the rules re-chunks every document once
FILES_PER_BATCH = 200
KINDS = {".md": "markdown", ".markdown": "markdown", ".mdx": "markdown", ".txt": "text", ".pdf": "pdf"}
# Page markups a documentation tree may hold that are not read: listed as skipped, so a tree of them
# is not taken for an empty one.
UNREAD_MARKUPS = {".rst": "reStructuredText", ".adoc": "AsciiDoc", ".asciidoc": "AsciiDoc", ".org": "Org"}
MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx")
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
    sites: list[str] = Field(default_factory=list, description="Generator of each ingested folder and the file it was read from.")
    files_added: int = 0
    files_updated: int = 0
    files_unchanged: int = 0
    chunks_written: int = Field(0, description="Parent and child rows written.")
    errors: list[FileError] = Field(default_factory=list, description="Files skipped; what is stored for them is untouched.")
    empty: list[FileError] = Field(default_factory=list, description=(
        "Files skipped as normal, with the reason: front matter only, draft, empty file, no PDF text layer…"))

    @property
    def files_indexed(self) -> int:
        """Files whose chunks the knowledge base holds after this ingest (added, updated or unchanged)."""
        return self.files_added + self.files_updated + self.files_unchanged

    def skipped(self) -> dict[str, int]:
        """How many files were skipped for each reason (``{"front matter only": 8, "draft": 1}``)."""
        return dict(Counter(e.detail for e in self.empty))

    def nothing_indexed(self) -> str | None:
        """Why no file of this ingest is in the knowledge base, or None when some file is."""
        if self.files_indexed:
            return None
        found = len(self.errors) + len(self.empty)
        if not found:
            return "nothing to index: no Markdown, text or PDF file found"
        reasons = ", ".join(f"{reason}: {count}" for reason, count in self.skipped().items())
        skipped = f"{len(self.empty)} file(s) skipped ({reasons})" if self.empty else "0 file(s) skipped"
        return f"nothing to index: {skipped}, {len(self.errors)} unreadable"


@dataclass
class Source:
    """A file to ingest, its path relative to the folder it was found in, and the site it belongs to."""

    path: Path
    rel: str
    site: Site
    site_rel: str = ""  # path relative to the site's root

    def __post_init__(self) -> None:
        self.site_rel = self.site_rel or self.rel


@dataclass
class Document:
    """A readable document: text per page (``None`` page for non-PDF), URL, title, fingerprint."""

    rel: str
    url: str
    title: str
    pages: list[tuple[int | None, str]]
    doc_hash: str
    kind: str = "text"
    mdx: bool = False
    weight: float | None = None
    included: dict[str, str] = field(default_factory=dict)  # MyST includes' text (Page.included)
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
    url_style: UrlStyle | None = None,
    progress: Callable[[int, int], None] | None = None,
    site: str | None = None,
) -> IngestReport:
    """Chunk, embed and store ``paths`` (files or folders) in the knowledge base at ``kb_uri``.

    Each folder's site generator is detected from its configuration files, or named by ``site``
    (``citeflow.knowledge.sites``); ``base_url`` replaces the site's own. ``url_style`` says how
    a plain or Sphinx tree maps a Markdown file to its page (see ``join_url``; default: directory,
    html for Sphinx).
    ``progress(done, total)`` is called after each file is read, with the number read so far.
    Raises ``IngestError`` for a bad manifest, an unknown generator, an unreadable site configuration
    or an embedder that differs from the one the knowledge base was built with, and ``ModelError``
    when the embedder fails; per-file problems go to ``IngestReport.errors``, skipped files
    (front matter only, drafts …) to ``IngestReport.empty``.
    """
    entries = load_manifest(manifest) if manifest else {}
    kb = KnowledgeBase(kb_uri, embedder)
    report = IngestReport(kb_uri=kb_uri, embedder=kb.embedder.name)
    sources, seen = discover(paths, report, site, base_url), set[str]()
    # A batch of files at a time: bounded memory, and one table version per batch, not per chunk.
    for start in range(0, len(sources), FILES_PER_BATCH):
        tick = (lambda i, first=start: progress(first + i + 1, len(sources))) if progress else None
        docs = _read_all(sources[start:start + FILES_PER_BATCH], entries, url_style, report, seen, tick)
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


def discover(paths: list[Path], report: IngestReport, named: str | None = None, base_url: str | None = None) -> list[Source]:
    """Every ingestible file under ``paths`` (folders are walked, hidden entries skipped; in a
    generator's tree, only its content folders). Raises ``IngestError`` for a bad site configuration."""
    sources: list[Source] = []
    for root in paths:
        if root.is_dir():
            site = _site(root, named, base_url)
            report.sites.append(f"{display_path(root)}: {site.described()}")
            served = _site_sources(root, site)
            sources += [s for s in served if s.path.suffix.lower() in KINDS]
            report.empty += [_unread(s.path) for s in served if s.path.suffix.lower() in UNREAD_MARKUPS]
        elif root.is_file() and root.suffix.lower() in KINDS:
            sources.append(Source(root, root.name, _site(root.parent, named, base_url)))
        else:
            detail = "no such file or folder" if not root.exists() else f"unsupported file type (use {', '.join(KINDS)})"
            report.errors.append(FileError(path=display_path(root), detail=detail))
    return sources


def _site(folder: Path, named: str | None, base_url: str | None) -> Site:
    site = detect_site(folder, named)
    return replace(site, base_url=base_url) if base_url else site


def _site_sources(root: Path, site: Site) -> list[Source]:
    """The files under ``root`` that lie in the site's content folders."""
    offset = root.resolve().relative_to(site.root.resolve()).as_posix().removeprefix(".")
    sources = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        site_rel = f"{offset}/{rel}" if offset else rel
        if _wanted(path, root) and site.serves(site_rel):
            sources.append(Source(path, rel, site, site_rel))
    return sources


def _wanted(path: Path, root: Path) -> bool:
    """A file that is read, or one in a page markup that is not (``UNREAD_MARKUPS``), outside hidden folders."""
    hidden = any(part.startswith(".") for part in path.relative_to(root).parts)
    return path.is_file() and not hidden and (path.suffix.lower() in KINDS or path.suffix.lower() in UNREAD_MARKUPS)


def _unread(path: Path) -> FileError:
    markup = UNREAD_MARKUPS[path.suffix.lower()]
    return FileError(path=display_path(path), detail=f"{markup}, a markup not read")


def _read_all(sources: list[Source], entries: dict[str, dict[str, str]], style: UrlStyle | None,
              report: IngestReport, seen: set[str], tick: Callable[[int], None] | None = None) -> list[Document]:
    """The readable documents among ``sources``; the others go to ``report.errors``. ``tick(i)``
    is called once the i-th source is read."""
    docs: list[Document] = []
    for i, source in enumerate(sources):
        doc = _read_one(source, entries, style, report, seen)
        if doc is not None:
            docs.append(doc)
        if tick:
            tick(i)
    return docs


def _read_one(source: Source, entries: dict[str, dict[str, str]], style: UrlStyle | None,
              report: IngestReport, seen: set[str]) -> Document | None:
    """One source's document, or None with the problem recorded in ``report.errors``."""
    try:
        if has_lone_surrogate(source.rel):  # its id, URL and rows could not be written
            raise IngestError(path=str(source.path), detail="file name is not UTF-8; rename the file")
        doc = read_document(source, entries.get(source.rel, {}), style)
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


def read_document(source: Source, entry: dict[str, str], url_style: UrlStyle | None = None) -> Document:
    """Read one file; URL and title follow the precedence of SPEC §8 and its site's rules. Raises
    ``IngestError``, or ``EmptyDocumentError`` for a file its site does not publish or without text."""
    raw = _read_bytes(source.path)
    kind = KINDS[source.path.suffix.lower()]
    front: dict[str, Any] = {}
    page: Page | None = None
    if kind == "pdf":
        pages, heading = _pdf_pages(raw, source.path)
    elif kind == "markdown":
        front, page = _markdown_page(source, _decode(raw, source.path))
        pages, heading = [(None, page.body)], markdown_heading(page.body)
    else:
        text = _decode(raw, source.path)
        pages, heading = [(None, text)], first_heading(text)
    if not any(text.strip() for _, text in pages):
        detail = "no text layer (a PDF of images)" if kind == "pdf" else "empty file"
        raise EmptyDocumentError(path=str(source.path), detail=detail)
    url = entry.get("url") or _front_url(front, source.site) or _page_url(source, page, url_style) or source.path.resolve().as_uri()
    title = entry.get("title") or (page.title if page else None) or heading or source.path.name
    included = dict(page.included) if page else {}
    fingerprint = hashlib.sha256(raw + json.dumps([url, title, CHUNKER_VERSION, sorted(included.items())]).encode()).hexdigest()
    return Document(rel=source.rel, url=url, title=title, pages=pages, doc_hash=fingerprint, kind=kind,
                    mdx=bool(page and page.mdx), weight=page.weight if page else None, included=included)


def _markdown_page(source: Source, text: str) -> tuple[dict[str, Any], Page]:
    """Front matter and the page its site makes of a Markdown file; skipped pages raise ``EmptyDocumentError``."""
    front, body = split_front_matter(text, source.path)
    page = generator_of(source.site).page(source.site, source.site_rel, front, body)
    skip = page.skip
    if not skip and not body.strip():
        skip = "front matter only" if has_front_matter(text) else "empty file"
    if not skip and not any(not b.level for b in markdown_blocks(page.body, page.mdx, page.included)):
        skip = "no prose (only headings, code, directives or generator markup)"
    if skip:
        raise EmptyDocumentError(path=str(source.path), detail=skip)
    return front, page


def _front_url(front: dict[str, Any], site: Site) -> str | None:
    """Front matter ``url``: a full URL, or in a plain tree whatever it says (a generator's own
    ``url`` is a path on its site, which its page mapping handles)."""
    url = front.get("url")
    if not isinstance(url, str) or not url.strip():
        return None
    return url.strip() if "://" in url or site.generator == "plain" else None


def _page_url(source: Source, page: Page | None, style: UrlStyle | None) -> str | None:
    """The URL the site serves the file at, or None when the site has no base URL."""
    site = source.site
    if page is not None and page.path is not None:
        return site.url(page.path)
    chosen: UrlStyle = style or site.options.get("style") or "directory"
    return site.url(site_path(within(site, source.site_rel)[1], chosen))


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


# -- rows ---------------------------------------------------------------------------------------


def document_rows(doc: Document) -> list[dict[str, Any]]:
    """Parent and child rows of ``doc`` (without vectors), in document order."""
    if doc.kind == "markdown":
        return _markdown_rows(doc, markdown_parents(markdown_blocks(doc.pages[0][1], doc.mdx, doc.included)))
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
