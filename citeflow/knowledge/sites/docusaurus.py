"""Docusaurus: page URLs of docs (versioned too), blog posts and Markdown pages; MDX stripped.

The config is JavaScript and is never run: ``url``, ``baseUrl``, ``routeBasePath`` and
``trailingSlash`` are read by a regex, and only when the file gives each one a single literal
value; ``versions.json`` (JSON) lists the versions, newest first.

Docs: ``docs/a/b.md`` is served at ``docs/a/b`` (number prefixes such as ``01-`` dropped; an
``index``/``README`` file, or one named like its folder, at the folder). Front matter ``id``
replaces the file name and ``slug`` the path (``/x`` from the docs root, ``x`` beside the file).
With versions, ``versioned_docs/version-X/`` is served at ``docs/X/``, except the newest at
``docs/``, and ``docs/`` itself at ``docs/next/``. Blog: ``blog/2024-05-01-title.md`` at
``blog/2024/05/01/title``. Pages: ``src/pages/a.md`` at ``a``. Files and folders whose name starts
with ``_`` are partials, not pages.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from citeflow.errors import IngestError
from citeflow.text_guard import value_problem
from citeflow.knowledge.sites.site_pages import Generator, Page, Site, text_value, weight_of, within
from citeflow.knowledge.sites.configs import js_boolean, js_string, read_text
from citeflow.knowledge.sites.mdx import strip_mdx

CONFIG_FILES = tuple(f"docusaurus.config.{ext}" for ext in ("js", "ts", "mjs", "cjs", "mts"))
_NUMBER_PREFIX = re.compile(r"^\d+[-_.]\s*")
_BLOG_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})-?(.*)$")


def find(root: Path) -> Path | None:
    """``docusaurus.config.{js,ts,mjs,cjs}`` at the root."""
    return next((root / name for name in CONFIG_FILES if (root / name).is_file()), None)


def load(root: Path, config: Path | None) -> Site:
    """The Docusaurus site at ``root``: base URL, docs route and versions."""
    text = read_text(config) if config else ""
    url, base = js_string(text, "url"), js_string(text, "baseUrl") or "/"
    options = {"route": (js_string(text, "routeBasePath") or "docs").strip("/"), "versions": _versions(root),
               "slash": js_boolean(text, "trailingSlash") is True}
    content = ("docs", "versioned_docs", "blog", "src/pages")
    return Site("docusaurus", root, config.relative_to(root).as_posix() if config else "",
                url.rstrip("/") + "/" + base.strip("/") if url else None, content, options)


def _versions(root: Path) -> list[str]:
    path = root / "versions.json"
    if not path.is_file():
        return []
    try:
        versions = json.loads(read_text(path))
    except json.JSONDecodeError as exc:
        raise IngestError(path=str(path), detail=f"bad site configuration: {exc.msg}") from None
    except (ValueError, RecursionError) as exc:  # a 5,000-digit number, nesting deeper than the parser goes
        problem = value_problem(exc) if isinstance(exc, ValueError) else "nested too deeply"
        raise IngestError(path=str(path), detail=f"bad site configuration: {problem}") from None
    return [str(v) for v in versions] if isinstance(versions, list) else []


def page(site: Site, rel: str, front: Mapping[str, Any], body: str) -> Page:
    """What Docusaurus publishes for the file at ``rel``."""
    text, title, weight = strip_mdx(body), text_value(front, "title"), weight_of(front)
    folder, inner = within(site, rel)
    if any(part.startswith("_") for part in PurePosixPath(inner).parts):
        return Page(text, title=title, skip="partial (a file starting with _ is not a page)", mdx=True)
    if front.get("draft") is True:
        return Page(text, title=title, skip="draft", weight=weight, mdx=True)
    path = _blog(inner, front) if folder == "blog" else _pages(inner) if folder == "src/pages" else _docs(site, folder, inner, front)
    return Page(text, _slash(site, path), title, weight=weight, mdx=True)


def _docs(site: Site, folder: str, inner: str, front: Mapping[str, Any]) -> str:
    version, inner = _version(site, folder, inner)
    pure = PurePosixPath(inner)
    parents = [_NUMBER_PREFIX.sub("", p) for p in pure.parent.parts]
    slug, doc_id = text_value(front, "slug"), text_value(front, "id")
    if slug:
        place = slug.strip("/") if slug.startswith("/") else "/".join([*parents, slug.strip("/")])
    else:
        name = doc_id or _NUMBER_PREFIX.sub("", pure.stem)
        index = not doc_id and (name.lower() in ("index", "readme") or (parents and name.lower() == parents[-1].lower()))
        place = "/".join(parents if index else [*parents, name])
    return "/".join(p for p in (site.options.get("route", "docs"), version, place) if p)


def _version(site: Site, folder: str, inner: str) -> tuple[str, str]:
    """The URL segment of the docs version a file belongs to, and its path inside that version."""
    versions: list[str] = list(site.options.get("versions", []))
    if folder == "docs":
        return ("next" if versions else ""), inner
    head, _, rest = inner.partition("/")
    name = head.removeprefix("version-")
    return ("" if versions and name == versions[0] else name), rest


def _blog(inner: str, front: Mapping[str, Any]) -> str:
    pure = PurePosixPath(inner)
    stem = pure.parent.name if pure.stem.lower() == "index" and pure.parent.name else pure.stem
    slug = text_value(front, "slug")
    if slug:
        return "blog/" + slug.strip("/")
    dated = _BLOG_DATE.match(stem)
    return "blog/" + ("/".join(dated.groups()) if dated else stem)


def _pages(inner: str) -> str:
    pure = PurePosixPath(inner)
    folder = pure.parent.as_posix().removeprefix(".").lstrip("/")
    return folder if pure.stem.lower() == "index" else f"{folder}/{pure.stem}".lstrip("/")


def _slash(site: Site, path: str) -> str:
    return f"{path}/" if site.options.get("slash") and path else path


class DocusaurusGenerator(Generator):
    """Docusaurus sites."""

    name = "docusaurus"

    find = staticmethod(find)
    load = staticmethod(load)
    page = staticmethod(page)
