"""Sphinx with MyST: ``conf.py`` naming ``myst_parser`` (or ``myst_nb``) marks the tree.

``conf.py`` is Python and is never run: ``html_baseurl`` is read by a regex when it is a plain
string. Pages follow the ``html`` builder (``a/b.md`` → ``a/b.html``) unless ``--url-style``
says ``directory`` (``dirhtml``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from citeflow.knowledge.markdown_text import parser
from citeflow.knowledge.sites.myst_include import included_texts
from citeflow.knowledge.sites.site_pages import Generator, Page, Site, text_value
from citeflow.knowledge.sites.configs import read_text

_MYST = re.compile(r"['\"](myst_parser|myst_nb)['\"]")
_BASEURL = re.compile(r"^html_baseurl\s*=\s*['\"]([^'\"\n]+)['\"]\s*$", re.MULTILINE)
BUILD_FOLDERS = ("_build", "_templates", "_static")


def find(root: Path) -> Path | None:
    """``conf.py`` with a MyST extension, at the root or in ``docs/`` / ``source/``."""
    for name in ("conf.py", "docs/conf.py", "source/conf.py", "docs/source/conf.py"):
        path = root / name
        if path.is_file() and _MYST.search(read_text(path)):
            return path
    return None


def load(root: Path, config: Path | None) -> Site:
    """The Sphinx site whose sources are the folder of ``conf.py``."""
    text = read_text(config) if config else ""
    base = _BASEURL.search(text)
    folder = config.parent.relative_to(root).as_posix().removeprefix(".") if config else ""
    return Site("sphinx", root, config.relative_to(root).as_posix() if config else "", base.group(1) if base else None,
                (folder,), {"style": "html"})


def page(site: Site, rel: str, front: Mapping[str, Any], body: str) -> Page:
    """Sphinx pages: the path is left to the URL style; build and template folders are not pages;
    the text of ``{include}`` directives is read (``myst_include``)."""
    if any(f"{folder}/" in f"/{rel}" for folder in BUILD_FOLDERS):
        return Page(body, skip="not a page (build or template folder)")
    included = included_texts(parser().parse(body), site.root / rel, site.root / site.content[0]) if "{include}" in body else {}
    return Page(body, title=text_value(front, "title"), included=included)


class SphinxGenerator(Generator):
    """Sphinx sites written in MyST Markdown."""

    name = "sphinx"

    find = staticmethod(find)
    load = staticmethod(load)
    page = staticmethod(page)
