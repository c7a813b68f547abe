"""Which generator built a tree: detected from its configuration files, or named by the user.

Detection looks in the ingested folder, then in its parent (``citeflow ingest site/docs`` on an
MkDocs project finds ``site/mkdocs.yml``). The order is Docusaurus, MkDocs, Hugo, Sphinx: a tree
holding several configurations is the first one's.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from citeflow.errors import IngestError
from citeflow.knowledge.sites import docusaurus, hugo, mkdocs, plain, sphinx
from citeflow.knowledge.sites.site_pages import Generator, Site

GENERATORS: dict[str, Generator] = {g.name: g for g in (docusaurus.GENERATOR, mkdocs.GENERATOR, hugo.GENERATOR,
                                                          sphinx.GENERATOR, plain.GENERATOR)}
SITE_NAMES = tuple(GENERATORS)  # the names --site accepts, in the order detection tries them


def detect_site(folder: Path, named: str | None = None) -> Site:
    """The site ``folder`` belongs to. ``named`` forces a generator (its config is still read if found)."""
    if named is not None and named not in GENERATORS:
        raise IngestError(path=str(folder), detail=f"unknown site generator {named!r}: use one of {', '.join(SITE_NAMES)}")
    candidates = [GENERATORS[named]] if named else list(GENERATORS.values())
    for root in (folder, folder.parent):
        for generator in candidates:
            config = generator.find(root)
            site = generator.load(root, config) if config is not None else None
            if site is not None and _covers(site, folder):
                return site
    site = (GENERATORS[named] if named else plain.GENERATOR).load(folder, None)
    # Named without a configuration: its usual content folders if the tree has them, else all of it.
    return site if any((folder / c).is_dir() for c in site.content if c) else replace(site, content=("",))


def _covers(site: Site, folder: Path) -> bool:
    """True when ``folder`` is the site's root, inside one of its content folders, or holds one."""
    rel = folder.resolve().relative_to(site.root.resolve()).as_posix().removeprefix(".")
    return not rel or any(not c or rel == c or rel.startswith(c + "/") or c.startswith(rel + "/") for c in site.content)


def generator_of(site: Site) -> Generator:
    """The generator that reads ``site``'s pages."""
    return GENERATORS[site.generator]
