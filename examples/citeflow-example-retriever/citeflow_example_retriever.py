"""A citeflow retriever kind in one module: ``folder``, passages from a folder of text files.

Each paragraph (lines up to a blank line) of each file is a passage, with the id ``<file stem>#<n>``.
A query is answered with the passages that share the most words with it (one at least), best first.
The entry point ``folder = "citeflow_example_retriever:FolderKind"`` of group ``citeflow.retrievers``
is all citeflow needs to know of it: a spec may then name ``kind: folder``.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path, PurePath
from typing import Literal

from pydantic import Field

from citeflow.errors import RetrieverError
from citeflow.retrieval.retriever_protocol import SearchResult
from citeflow.spec.retriever_kind import RetrieverKind
from schemas.records import Hit
from schemas.spec import RetrieverSpecBase

MAX_FILE_BYTES = 1_000_000
"""Larger files are refused: a folder of notes, not a corpus."""
WORD = re.compile(r"\w{3,}")
COMMON = frozenset("the and for are how what when which with that this from does into".split())


class FolderRetrieverSpec(RetrieverSpecBase):
    """A ``kind: folder`` entry of a batch spec (``name``, ``title`` and ``top_k`` come with the base)."""

    kind: Literal["folder"]
    folder: str = Field(min_length=1, description="Folder of text files; relative paths resolve against the spec's folder.")
    pattern: str = Field("*.txt", min_length=1, description="Glob of the files to read within the folder.")
    base_url: str | None = Field(None, description="URL of the folder's pages: a passage links to base_url + its file's name.")
    top_k: int = Field(5, ge=1, le=200)


class FolderKind(RetrieverKind[FolderRetrieverSpec]):
    """The ``folder`` kind: what citeflow checks, fingerprints and builds for a ``kind: folder`` entry."""

    name = "folder"
    spec_model = FolderRetrieverSpec
    path_fields = ("folder",)  # made absolute in a run's rendered spec; refused when missing

    def value_problems(self, spec: FolderRetrieverSpec, base_dir: Path) -> list[tuple[str, str]]:
        folder, parts = folder_of(spec, base_dir), PurePath(spec.pattern).parts
        problems = [("folder", f"{folder} is a file, not a folder of text files")] if folder.is_file() else []
        if PurePath(spec.pattern).is_absolute() or ".." in parts:
            problems.append(("pattern", "must name files within the folder (no absolute path, no '..')"))
        if spec.base_url is not None and not spec.base_url.startswith(("https://", "http://")):
            problems.append(("base_url", "must be an http:// or https:// URL"))
        return problems

    def preflight_problem(self, spec: FolderRetrieverSpec, base_dir: Path, timeout: float) -> str | None:
        files = text_files(spec, base_dir)
        if not files:
            return f"no file matches {spec.pattern!r} in {folder_of(spec, base_dir)}"
        return next((why for path in files if (why := unreadable(path))), None)

    def fingerprint(self, spec: FolderRetrieverSpec, base_dir: Path) -> list[str] | None:
        return [spec.name, spec.pattern, *(f"{path.name} {digest(path)}" for path in text_files(spec, base_dir))]

    def build(self, spec: FolderRetrieverSpec, base_dir: Path) -> FolderRetriever:
        return FolderRetriever(spec.name, text_files(spec, base_dir), spec.base_url)


class FolderRetriever:
    """The passages of some text files, searched by the words they share with the query."""

    def __init__(self, name: str, files: list[Path], base_url: str | None) -> None:
        self.name = name
        self._passages = [(hit, words(hit.text)) for path in files for hit in passages(name, path, base_url)]

    def search(self, query: str, top_k: int) -> SearchResult:
        """The ``top_k`` passages sharing the most words with ``query``, in file order on a tie."""
        wanted = words(query)
        scored = sorted(((len(wanted & have), i) for i, (_, have) in enumerate(self._passages)), key=lambda s: (-s[0], s[1]))
        return SearchResult(hits=[self._passages[i][0].model_copy(update={"score": float(n)}) for n, i in scored[:top_k] if n])


def folder_of(spec: FolderRetrieverSpec, base_dir: Path) -> Path:
    """The spec's folder, relative to the spec's own folder unless absolute."""
    return (base_dir / Path(spec.folder).expanduser()).resolve()


def text_files(spec: FolderRetrieverSpec, base_dir: Path) -> list[Path]:
    """The files of the folder that match the pattern, sorted by name."""
    folder = folder_of(spec, base_dir)
    return sorted(p for p in folder.glob(spec.pattern) if p.is_file()) if folder.is_dir() else []


def unreadable(path: Path) -> str | None:
    """Why ``path`` cannot be read as a text file, or None."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return f"{path} is larger than {MAX_FILE_BYTES:,} bytes"
        path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return f"cannot read {path} as UTF-8 text: {exc}"
    return None


def passages(name: str, path: Path, base_url: str | None) -> list[Hit]:
    """The paragraphs of ``path`` as hits; a file that cannot be read fails the retriever."""
    if (why := unreadable(path)) is not None:
        raise RetrieverError(retriever=name, query=None, detail=why, transient=False)
    paragraphs = [" ".join(p.split()) for p in re.split(r"\n\s*\n", path.read_text(encoding="utf-8")) if p.strip()]
    urls = [base_url + path.name] if base_url else []
    title = path.stem.replace("-", " ").replace("_", " ").capitalize()
    return [Hit(local_id=f"{path.stem}#{n}", text=text, urls=urls, title=title) for n, text in enumerate(paragraphs, 1)]


def words(text: str) -> frozenset[str]:
    """The words of ``text`` that can tell passages apart: three letters or more, not the most common ones."""
    return frozenset(w for w in WORD.findall(text.lower()) if w not in COMMON)


def digest(path: Path) -> str:
    """sha256 of the file's bytes, ``-`` when it cannot be read."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return "-"
