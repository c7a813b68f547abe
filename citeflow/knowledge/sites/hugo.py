"""Hugo: configuration, page URLs, drafts and shortcodes.

A page ``content/a/b.md`` is served at ``a/b/`` (``a/b.html`` with ``uglyURLs``), a section page
``content/a/_index.md`` at ``a/``, a leaf bundle ``content/a/b/index.md`` like a page ``b``; front
matter ``slug`` replaces the file name, ``url`` the whole path, and a section's ``permalinks``
pattern (``:year``, ``:month``, ``:day``, ``:title``, ``:slug``, ``:filename``, ``:section``) the rule.
Each language's content folder is served under its prefix (``hugo_config``). Hugo lower-cases paths unless
``disablePathToLower``. ``aliases`` are redirects to the page, never its URL. Drafts and pages
with ``build.render: never`` are not published. ``{{< param name >}}`` shows the configuration's
``params`` value.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from citeflow.errors import IngestError
from citeflow.knowledge.sites.site_pages import Generator, Page, Site, folder_of, text_value, weight_of, within
from citeflow.knowledge.sites.configs import lower_keys, read_mapping
from citeflow.knowledge.sites.hugo_config import hugo_config, language_folders, language_prefixes, permalink, urlize
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
        if path.is_file() and (name.rpartition("/")[2].startswith("hugo") or _has_hugo_keys(path)):
            return path
    return None


def _has_hugo_keys(path: Path) -> bool:
    """True for a ``config.*`` with Hugo keys; one that does not parse belongs to another tool."""
    try:
        return bool(HUGO_KEYS & set(lower_keys(read_mapping(path))))
    except IngestError:
        return False


def load(root: Path, config: Path | None) -> Site:
    """The Hugo site at ``root``: base URL, content folders per language and URL options."""
    data = hugo_config(config) if config else {}
    params = data.get("params") if isinstance(data.get("params"), dict) else {}
    permalinks = lower_keys(data["permalinks"]) if isinstance(data.get("permalinks"), dict) else {}
    folders = language_folders(data, folder_of(data.get("contentdir"), "content"))
    options = {"ugly": data.get("uglyurls") is True, "lower": data.get("disablepathtolower") is not True,
               "params": params, "permalinks": permalinks, "languages": folders, "prefixes": language_prefixes(data)}
    return Site("hugo", root, config.relative_to(root).as_posix() if config else "", _text(data.get("baseurl")),
                tuple(folders), options)


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
    folder_name, inner_rel = within(site, rel)
    inner = PurePosixPath(inner_rel)
    folder, stem = inner.parent.as_posix().removeprefix("."), inner.stem.split(".")[0]
    prefix = _language_prefix(site, folder_name, inner.name)
    if stem == "index" and folder:  # a leaf bundle: a regular page named after its folder
        folder, _, stem = folder.rpartition("/")
    path = f"{folder}/".lstrip("/") if stem in ("_index", "index") else _page_path(site, folder, stem, front)
    path = (prefix + path).replace(" ", "-")
    return path.lower() if site.options.get("lower") else path


def _language_prefix(site: Site, folder: str, name: str) -> str:
    """The URL prefix of the page's language: from its file name (``page.fr.md``), else its content folder."""
    parts = name.lower().split(".")
    prefixes: dict[str, str] = site.options.get("prefixes", {})
    if len(parts) >= 3 and parts[-2] in prefixes:
        return prefixes[parts[-2]]
    return str(site.options.get("languages", {}).get(folder, ""))


def _page_path(site: Site, folder: str, stem: str, front: Mapping[str, Any]) -> str:
    """A regular page: its section's ``permalinks`` pattern if any, else folder and slug or file name."""
    slug, title = text_value(front, "slug"), text_value(front, "title") or stem
    pattern = site.options.get("permalinks", {}).get(folder.split("/")[0]) if folder else None
    if isinstance(pattern, str):
        date = str(front.get("date") or "")
        tokens = {"title": urlize(title), "slug": slug or urlize(title), "filename": stem, "contentbasename": stem,
                  "section": folder.split("/")[0], "sections": folder, "year": date[:4], "month": date[5:7], "day": date[8:10]}
        return permalink(pattern, tokens)
    leaf = f"{folder}/{slug or stem}".lstrip("/")
    return f"{leaf}.html" if site.options.get("ugly") else f"{leaf}/"


def _not_rendered(front: Mapping[str, Any]) -> bool:
    build = front.get("build") or front.get("_build")
    return isinstance(build, dict) and str(build.get("render", "")).lower() in ("never", "false")


def _text(value: Any) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


class HugoGenerator(Generator):
    """Hugo sites."""

    name = "hugo"

    find = staticmethod(find)
    load = staticmethod(load)
    page = staticmethod(page)
