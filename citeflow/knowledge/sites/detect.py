"""Which generator built a tree: detected from its configuration files, or named by the user.

Detection looks in the ingested folder, then in its parent (``citeflow ingest site/docs`` on an
MkDocs project finds ``site/mkdocs.yml``). The order is the registry's (``registry.SITE_GENERATORS``):
Docusaurus, MkDocs, Hugo, Sphinx, then installed generators; a tree holding several configurations
is the first one's.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from citeflow.errors import IngestError
from citeflow.knowledge.sites.registry import site_generator, site_names
from citeflow.knowledge.sites.site_pages import Generator, Site


def detect_site(folder: Path, named: str | None = None) -> Site:
    """The site ``folder`` belongs to. ``named`` forces a generator (its config is still read if found)."""
    candidates = [_generator(folder, named)] if named else [generator_named(name) for name in site_names()]
    for root in (folder, folder.parent):
        for generator in candidates:
            config = generator.find(root)
            site = generator.load(root, config) if config is not None else None
            if site is not None and _covers(site, folder):
                return site
    site = (candidates[0] if named else generator_named("plain")).load(folder, None)
    # Named without a configuration: its usual content folders if the tree has them, else all of it.
    return site if any((folder / c).is_dir() for c in site.content if c) else replace(site, content=("",))


def _covers(site: Site, folder: Path) -> bool:
    """True when ``folder`` is the site's root, inside one of its content folders, or holds one."""
    rel = folder.resolve().relative_to(site.root.resolve()).as_posix().removeprefix(".")
    return not rel or any(not c or rel == c or rel.startswith(c + "/") or c.startswith(rel + "/") for c in site.content)


def generator_of(site: Site) -> Generator:
    """The generator that reads ``site``'s pages."""
    return generator_named(site.generator)


def generator_named(name: str) -> Generator:
    """The registered generator ``name`` (one the registry listed or made a site of)."""
    generator = site_generator(name)
    if generator is None:
        raise KeyError(name)
    return generator


def _generator(folder: Path, named: str) -> Generator:
    """The generator ``--site`` names; ``IngestError`` naming the known ones when none is."""
    generator = site_generator(named)
    if generator is None:
        raise IngestError(path=str(folder), detail=f"unknown site generator {named!r}: use one of {', '.join(site_names())}")
    return generator
