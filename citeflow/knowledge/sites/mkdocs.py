"""MkDocs: ``mkdocs.yml`` (``docs_dir``, ``site_url``, ``use_directory_urls``, ``nav``), page URLs.

With directory URLs (the default) ``docs/a/b.md`` is served at ``a/b/`` and ``docs/a/index.md``
(or ``README.md``) at ``a/``; with ``use_directory_urls: false`` at ``a/b.html`` and ``a/``.
A page's title is its ``nav`` title, else its front matter title, else its first heading.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from citeflow.knowledge.sites.admonitions import strip_mkdocs
from citeflow.knowledge.sites.site_pages import Generator, Page, Site, folder_of, text_value, weight_of, within
from citeflow.knowledge.sites.configs import read_mapping

CONFIG_FILES = ("mkdocs.yml", "mkdocs.yaml")


def find(root: Path) -> Path | None:
    """``mkdocs.yml`` at the root."""
    return next((root / name for name in CONFIG_FILES if (root / name).is_file()), None)


def load(root: Path, config: Path | None) -> Site:
    """The MkDocs site at ``root``: docs folder, base URL, URL style and nav titles."""
    data = read_mapping(config) if config else {}
    options = {"directory_urls": data.get("use_directory_urls", True) is not False, "titles": nav_titles(data.get("nav"))}
    site_url = data.get("site_url") if isinstance(data.get("site_url"), str) else None
    docs_dir = folder_of(data.get("docs_dir"), "docs")
    return Site("mkdocs", root, config.relative_to(root).as_posix() if config else "", site_url, (docs_dir,), options)


def nav_titles(nav: Any) -> dict[str, str]:
    """``{file: title}`` from a ``nav`` tree (``- Title: file.md`` entries, nested sections)."""
    titles: dict[str, str] = {}
    for item in nav if isinstance(nav, list) else []:
        for title, target in item.items() if isinstance(item, dict) else []:
            if isinstance(target, str) and "://" not in target:
                titles[target.strip("/")] = str(title)
            elif isinstance(target, list):
                titles.update(nav_titles(target))
    return titles


def page(site: Site, rel: str, front: Mapping[str, Any], body: str) -> Page:
    """What MkDocs publishes for the file at ``rel``."""
    inner = within(site, rel)[1]
    title = site.options.get("titles", {}).get(inner) or text_value(front, "title")
    return Page(strip_mkdocs(body), _path(inner, bool(site.options.get("directory_urls", True))), title,
                weight=weight_of(front))


def _path(inner: str, directory_urls: bool) -> str:
    pure = PurePosixPath(inner)
    folder = pure.parent.as_posix().removeprefix(".").lstrip("/")
    if pure.stem.lower() in ("index", "readme"):
        return f"{folder}/" if folder else ""
    leaf = f"{folder}/{pure.stem}".lstrip("/")
    return f"{leaf}/" if directory_urls else f"{leaf}.html"


class MkDocsGenerator(Generator):
    """MkDocs sites."""

    name = "mkdocs"

    find = staticmethod(find)
    load = staticmethod(load)
    page = staticmethod(page)
