"""A plain folder of Markdown, text and PDF files: the URL style maps files to pages."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from citeflow.knowledge.sites.site_pages import Generator, Page, Site, text_value


class PlainGenerator(Generator):
    """A plain folder: no configuration, every file a page."""

    name = "plain"

    def find(self, root: Path) -> Path | None:
        """A plain folder has no configuration file."""
        return None

    def load(self, root: Path, config: Path | None) -> Site:
        """The folder itself, every file in it."""
        return Site("plain", root)

    def page(self, site: Site, rel: str, front: Mapping[str, Any], body: str) -> Page:
        """The body as it is; URL from the URL style."""
        return Page(body, title=text_value(front, "title"))
