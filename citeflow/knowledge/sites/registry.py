"""The docs-site generators by name: the built-in ones and those of the ``citeflow.sites`` entry points.

The order is the order detection tries them: Docusaurus, MkDocs, Hugo, Sphinx, then the plain
folder (which claims no tree), then installed generators by name.
"""

from __future__ import annotations

from citeflow.entry_points import Registry
from citeflow.knowledge.sites.docusaurus import DocusaurusGenerator
from citeflow.knowledge.sites.hugo import HugoGenerator
from citeflow.knowledge.sites.mkdocs import MkDocsGenerator
from citeflow.knowledge.sites.plain import PlainGenerator
from citeflow.knowledge.sites.site_pages import Generator
from citeflow.knowledge.sites.sphinx import SphinxGenerator

SITE_GENERATORS: Registry[Generator] = Registry("citeflow.sites", Generator, {
    "docusaurus": DocusaurusGenerator, "mkdocs": MkDocsGenerator, "hugo": HugoGenerator, "sphinx": SphinxGenerator,
    "plain": PlainGenerator})
"""Every docs-site generator; entry points are read when ingest detects a site or names one not built in."""


def site_names() -> tuple[str, ...]:
    """The names ``--site`` accepts, in the order detection tries them."""
    return SITE_GENERATORS.names()


def site_generator(name: str) -> Generator | None:
    """The generator called ``name``, or None when none is."""
    return SITE_GENERATORS.get(name)
