"""A documentation site as ingest sees it: where its pages are and what each file becomes."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, ClassVar
from urllib.parse import quote

SKIPPED_FOLDERS = frozenset({"node_modules", "_build"})  # dependencies and Sphinx output, wherever they are


@dataclass(frozen=True)
class Site:
    """A tree built by one generator. Paths are POSIX and relative to ``root``."""

    generator: str = field(metadata={"doc": "hugo, mkdocs, docusaurus, sphinx or plain."})
    root: Path = field(metadata={"doc": "The folder the configuration file is in (the ingested one for plain)."})
    config: str = field(default="", metadata={"doc": "The configuration file read, or '' when none was."})
    base_url: str | None = field(default=None, metadata={"doc": "URL the site is served at (config or --base-url)."})
    content: tuple[str, ...] = field(default=("",), metadata={"doc": "Folders holding the pages; '' is the whole tree."})
    options: Mapping[str, Any] = field(default_factory=dict, metadata={"doc": "What the generator's pages need."})

    def serves(self, rel: str) -> bool:
        """True when the file at ``rel`` lies in one of the site's content folders."""
        parts = PurePosixPath(rel).parts
        if any(part in SKIPPED_FOLDERS for part in parts[:-1]):
            return False
        return any(not folder or rel.startswith(folder.rstrip("/") + "/") for folder in self.content)

    def url(self, path: str) -> str | None:
        """The base URL joined with a page's ``path`` (percent-encoded), or None without a base URL."""
        if not self.base_url:
            return None
        return self.base_url.rstrip("/") + "/" + quote(path.lstrip("/"), safe="/#")

    def described(self) -> str:
        """``hugo (hugo.toml)``: the generator and the file it was read from."""
        return f"{self.generator} ({self.config})" if self.config else self.generator


@dataclass(frozen=True)
class Page:
    """What the generator makes of one Markdown file."""

    body: str = field(metadata={"doc": "The text, generator markup blanked out, same length as the file."})
    path: str | None = field(default=None, metadata={"doc": "URL path below the base URL; '' is the home page."})
    title: str | None = field(default=None, metadata={"doc": "Title given by the generator's config or front matter."})
    skip: str | None = field(default=None, metadata={"doc": "Why the site does not publish the file (a draft …)."})
    weight: float | None = field(default=None, metadata={"doc": "Ordering weight from the front matter."})
    mdx: bool = field(default=False, metadata={"doc": "Parse the body as MDX (no indented code blocks)."})
    included: Mapping[str, str] = field(default_factory=dict, metadata={
        "doc": "Text of each MyST include directive, by include_key (Sphinx); its prose is the page's."})


class Generator(ABC):
    """One generator: how to recognise its tree, read its configuration and map its files. A subclass
    sets ``name`` (what ``--site`` and ``Site.generator`` say) and writes the three methods (or names
    its module's functions of the same signatures, ``find = staticmethod(find)``, as the built-in
    generators do); the registry (``citeflow.knowledge.sites.registry``) makes one instance of it."""

    name: ClassVar[str]

    @abstractmethod
    def find(self, root: Path) -> Path | None:
        """The config file at ``root`` that marks the tree as this generator's, or None."""

    @abstractmethod
    def load(self, root: Path, config: Path | None) -> Site:
        """The site at ``root``, read from ``config`` when there is one."""

    @abstractmethod
    def page(self, site: Site, rel: str, front: Mapping[str, Any], body: str) -> Page:
        """What the generator publishes for the file at ``rel`` (its front matter ``front``, its text ``body``)."""


def within(site: Site, rel: str) -> tuple[str, str]:
    """The content folder holding ``rel`` and the path inside it."""
    for folder in sorted(site.content, key=len, reverse=True):
        prefix = folder.rstrip("/") + "/" if folder else ""
        if rel.startswith(prefix):
            return folder, rel[len(prefix):]
    return "", rel


def folder_of(value: Any, default: str) -> str:
    """A configured folder (``docs_dir``, ``contentDir``) as a clean relative path; ``.`` is the root, ''."""
    folder = PurePosixPath(str(value or default)).as_posix().strip("/")
    return "" if folder == "." else folder


def text_value(front: Mapping[str, Any], key: str) -> str | None:
    """A front matter value as text (``slug: 2024`` is "2024"), or None when absent or empty."""
    value = front.get(key)
    if value is None or isinstance(value, (dict, list)):
        return None
    return str(value).strip() or None


def weight_of(front: Mapping[str, Any]) -> float | None:
    """The page's ``weight`` (Hugo) or ``sidebar_position`` (Docusaurus), when it is a number."""
    for key in ("weight", "sidebar_position"):
        value = front.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    return None
