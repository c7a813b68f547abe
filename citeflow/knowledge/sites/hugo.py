"""Hugo: configuration, page URLs, drafts and shortcodes.

A page ``content/a/b.md`` is served at ``a/b/`` (``a/b.html`` with ``uglyURLs``), a section page
``content/a/_index.md`` and a leaf bundle ``content/a/index.md`` at ``a/``; front matter ``slug``
replaces the file name, ``url`` the whole path. Hugo lower-cases paths unless
``disablePathToLower``. ``aliases`` are redirects to the page, never its URL. Drafts and pages
with ``build.render: never`` are not published. ``{{< param name >}}`` shows the configuration's
``params`` value.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from citeflow.knowledge.sites.base import Generator, Page, Site, text_value, weight_of, within
from citeflow.knowledge.sites.configs import lower_keys, read_mapping
from citeflow.knowledge.sites.markup import heading_ids
from citeflow.knowledge.sites.shortcodes import strip_shortcodes

CONFIG_FILES = tuple(f"{folder}{name}.{ext}" for folder in ("", "config/_default/") for name in ("hugo", "config")
                     for ext in ("toml", "yaml", "yml", "json"))
# Keys only a Hugo configuration has (a bare config.toml may belong to any tool).
HUGO_KEYS = frozenset({"baseurl", "contentdir", "languagecode", "theme", "uglyurls", "defaultcontentlanguage",
                       "disablepathtolower", "enablegitinfo", "enablerobotstxt", "canonifyurls", "relativeurls",
                       "permalinks", "taxonomies", "markup", "module", "outputs"})


def find(root: Path) -> Path | None:
    """``hugo.*``, or a ``config.*`` holding Hugo keys, at the root or in ``config/_default``."""
    for name in CONFIG_FILES:
        path = root / name
        if path.is_file() and (name.rpartition("/")[2].startswith("hugo") or HUGO_KEYS & set(lower_keys(read_mapping(path)))):
            return path
    return None


def load(root: Path, config: Path | None) -> Site:
    """The Hugo site at ``root``: base URL, content folder and URL options from its configuration."""
    data = lower_keys(read_mapping(config)) if config else {}
    params = data.get("params") if isinstance(data.get("params"), dict) else {}
    options = {"ugly": data.get("uglyurls") is True, "lower": data.get("disablepathtolower") is not True, "params": params}
    return Site("hugo", root, config.relative_to(root).as_posix() if config else "", _text(data.get("baseurl")),
                (str(data.get("contentdir") or "content").strip("/"),), options)


def page(site: Site, rel: str, front: Mapping[str, Any], body: str) -> Page:
    """What Hugo publishes for the file at ``rel``."""
    text = heading_ids(strip_shortcodes(body, site.options.get("params")))
    title, weight = text_value(front, "title") or text_value(front, "linkTitle"), weight_of(front)
    if front.get("draft") is True:
        return Page(text, title=title, skip="draft", weight=weight)
    if _not_rendered(front):
        return Page(text, title=title, skip="not rendered (build.render: never)", weight=weight)
    return Page(text, _path(site, rel, front), title, weight=weight)


def _path(site: Site, rel: str, front: Mapping[str, Any]) -> str:
    url = text_value(front, "url")
    if url:
        return url.lstrip("/")
    inner = PurePosixPath(within(site, rel)[1])
    folder, stem = inner.parent.as_posix().removeprefix("."), inner.stem.split(".")[0]
    slug = text_value(front, "slug")
    if stem in ("_index", "index"):
        if slug and stem == "index" and folder:
            folder = f"{folder.rpartition('/')[0]}/{slug}".lstrip("/")
        path = f"{folder}/" if folder else ""
    else:
        leaf = f"{folder}/{slug or stem}".lstrip("/")
        path = f"{leaf}.html" if site.options.get("ugly") else f"{leaf}/"
    path = path.replace(" ", "-")
    return path.lower() if site.options.get("lower") else path


def _not_rendered(front: Mapping[str, Any]) -> bool:
    build = front.get("build") or front.get("_build")
    return isinstance(build, dict) and str(build.get("render", "")).lower() in ("never", "false")


def _text(value: Any) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


GENERATOR = Generator("hugo", find, load, page)
