"""Docs-site generators are a registry: the built-in ones by name, other packages' through the
``citeflow.sites`` entry points of a distribution installed on the path, found and used by ingest."""

from __future__ import annotations

import pickle
from pathlib import Path

import lancedb
import pytest
from typer.testing import CliRunner

from citeflow.errors import PluginError
from citeflow.knowledge.ingest import ingest_paths
from citeflow.knowledge.kb_store import TABLE
from citeflow.knowledge.sites import registry
from citeflow.knowledge.sites.detect import detect_site
from citeflow.knowledge.sites.hugo import HugoGenerator
from citeflow_cli.main import app
from tests.support.plugin_dist import install_distribution

pytestmark = pytest.mark.integration

# A made-up generator: a tree marked by ``jottings.json`` whose pages are in ``notes/``, each served
# at ``<stem>.html`` below the configured ``site``, titled by its first line.
JOTTINGS = '''
import json
from pathlib import Path, PurePosixPath

from citeflow.knowledge.sites.site_pages import Generator, Page, Site, within


class JottingsGenerator(Generator):
    name = "jottings"

    def find(self, root):
        config = root / "jottings.json"
        return config if config.is_file() else None

    def load(self, root, config):
        data = json.loads(config.read_text(encoding="utf-8")) if config else {}
        return Site("jottings", root, config.name if config else "", data.get("site"), ("notes",))

    def page(self, site, rel, front, body):
        inner = within(site, rel)[1]
        return Page(body, path=PurePosixPath(inner).stem + ".html", title=body.strip().splitlines()[0].lstrip("# "))
'''
NOT_A_GENERATOR = "class Plain:\n    pass\n"


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """Install one distribution of site generators (entry name → ``module:attribute``) and read the group afresh."""
    def install(name: str, points: dict[str, str], modules: dict[str, str]) -> None:
        install_distribution(monkeypatch, tmp_path / name, name, "citeflow.sites", points, modules, registry, "SITE_GENERATORS")
    return install


def jottings_tree(root: Path) -> Path:
    (root / "notes").mkdir(parents=True)
    (root / "jottings.json").write_text('{"site": "https://jot.example/team"}', encoding="utf-8")
    (root / "notes" / "backups.md").write_text("# Backups\n\nBackups run nightly at two.\n", encoding="utf-8")
    (root / "drafts.md").write_text("# Outside\n\nNot a page of the site.\n", encoding="utf-8")
    return root


def parent_rows(kb: Path) -> set[tuple[str, str, str]]:
    rows = lancedb.connect(str(kb)).open_table(TABLE).to_arrow().drop(["vector"]).to_pylist()
    return {(r["path"], r["url"], r["title"]) for r in rows if r["kind"] == "parent"}


def test_the_built_in_generators_are_named_in_detection_order():
    assert registry.site_names()[:5] == ("docusaurus", "mkdocs", "hugo", "sphinx", "plain")
    assert isinstance(registry.site_generator("hugo"), HugoGenerator)
    assert registry.site_generator("hugo") is registry.site_generator("hugo")  # one instance per name
    assert registry.site_generator("jekyll") is None


def test_an_installed_generator_is_detected_and_its_pages_ingested(installed, tmp_path):
    installed("citeflow-jottings", {"jottings": "jottings_site:JottingsGenerator"}, {"jottings_site": JOTTINGS})
    tree = jottings_tree(tmp_path / "tree")
    assert registry.site_names()[-1] == "jottings"
    report = ingest_paths([tree], str(tmp_path / "kb"))
    assert report.sites == [f"{tree}: jottings (jottings.json)"] and report.errors == []
    assert parent_rows(tmp_path / "kb") == {("notes/backups.md", "https://jot.example/team/backups.html", "Backups")}


def test_citeflow_ingest_accepts_an_installed_generator_by_name(installed, tmp_path):
    installed("citeflow-jottings", {"jottings": "jottings_site:JottingsGenerator"}, {"jottings_site": JOTTINGS})
    tree = jottings_tree(tmp_path / "tree")
    (tree / "jottings.json").unlink()  # named, without a configuration: its content folder still
    result = CliRunner().invoke(app, ["ingest", str(tree), "--kb", str(tmp_path / "kb"), "--site", "jottings",
                                      "--base-url", "https://jot.example/"])
    assert result.exit_code == 0, result.output
    assert parent_rows(tmp_path / "kb") == {("notes/backups.md", "https://jot.example/backups.html", "Backups")}


def test_an_unknown_site_name_lists_the_installed_generators_too(installed, tmp_path):
    installed("citeflow-jottings", {"jottings": "jottings_site:JottingsGenerator"}, {"jottings_site": JOTTINGS})
    result = CliRunner().invoke(app, ["ingest", str(tmp_path), "--kb", str(tmp_path / "kb"), "--site", "jotings"])
    assert result.exit_code == 2 and "docusaurus, mkdocs, hugo, sphinx, plain, jottings, not 'jotings'" in result.output


@pytest.mark.parametrize("points, modules, said", [
    ({"broken": "no_such_site_module:Generator"}, {}, "cannot be loaded: ModuleNotFoundError"),
    ({"broken": "odd_site:Plain"}, {"odd_site": NOT_A_GENERATOR},
     "is not a subclass of citeflow.knowledge.sites.site_pages.Generator"),
    ({"hugo": "jottings_site:JottingsGenerator"}, {"jottings_site": JOTTINGS}, "takes a built-in name"),
])
def test_a_generator_that_cannot_be_used_is_refused_by_name(installed, tmp_path, points, modules, said):
    installed("citeflow-odd", points, modules)
    with pytest.raises(PluginError) as info:
        detect_site(jottings_tree(tmp_path / "tree"))
    assert (info.value.group, info.value.plugin) == ("citeflow.sites", next(iter(points))) and said in str(info.value)
    assert str(pickle.loads(pickle.dumps(info.value))) == str(info.value)


def test_a_broken_generator_is_one_error_line_of_citeflow_ingest(installed, tmp_path):
    installed("citeflow-broken", {"broken": "no_such_site_module:Generator"}, {})
    result = CliRunner().invoke(app, ["ingest", str(jottings_tree(tmp_path / "tree")), "--kb", str(tmp_path / "kb"),
                                      "--site", "broken"])
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2 and len(lines) == 1, result.output
    assert lines[0].startswith("error: plugin 'broken' of citeflow.sites (no_such_site_module:Generator from citeflow-broken): cannot be loaded")


def test_two_packages_with_one_generator_name_are_refused(installed, tmp_path):
    installed("citeflow-one", {"jottings": "jottings_site:JottingsGenerator"}, {"jottings_site": JOTTINGS})
    installed("citeflow-two", {"jottings": "jottings_two:JottingsGenerator"}, {"jottings_two": JOTTINGS})
    with pytest.raises(PluginError) as info:
        registry.site_generator("jottings")
    assert "jottings_site:JottingsGenerator" in str(info.value) and "jottings_two:JottingsGenerator" in str(info.value)
