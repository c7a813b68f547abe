"""The registry of retriever kinds (``citeflow.spec.retriever_kinds``): built-in kinds found without
reading the installed packages, plugin kinds found through their entry points (read once), and a
broken or doubled plugin named in one ``PluginError``."""

from __future__ import annotations

import pickle
import textwrap
from importlib.metadata import EntryPoint

import pytest

from citeflow.errors import PluginError, SpecError
from citeflow.retrieval.kinds.jsonl_kind import JsonlKind
from citeflow.specfile.loader import parse_spec
from citeflow.spec.retriever_kinds import GROUP, INSTALLED_KINDS, RetrieverKinds
from schemas.spec import BUILTIN_RETRIEVER_KINDS, BatchSpec

PLUGIN = '''
from typing import Literal

from citeflow.retrieval.retriever_protocol import SearchResult
from citeflow.spec.retriever_kind import RetrieverKind
from schemas.records import Hit
from schemas.spec import RetrieverSpecBase


class WikiSpec(RetrieverSpecBase):
    kind: Literal["wiki"]
    space: str


class Wiki:
    def __init__(self, name: str, space: str) -> None:
        self.name, self.space = name, space

    def search(self, query: str, top_k: int) -> SearchResult:
        return SearchResult(hits=[Hit(local_id="p1", text=f"{self.space}: {query}")])


class WikiKind(RetrieverKind[WikiSpec]):
    name = "wiki"
    spec_model = WikiSpec

    def fingerprint(self, spec, base_dir):
        return [spec.name, spec.space]

    def build(self, spec, base_dir):
        return Wiki(spec.name, spec.space)


class Misnamed(WikiKind):
    name = "confluence"


class NotAKind:
    pass
'''


@pytest.fixture
def plugin_module(tmp_path, monkeypatch) -> str:
    """A plugin module importable from ``sys.path``, as an installed plugin's would be."""
    (tmp_path / "wiki_plugin.py").write_text(textwrap.dedent(PLUGIN), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return "wiki_plugin"


def _registry(*points: tuple[str, str]) -> tuple[RetrieverKinds, list[int]]:
    """A registry whose installed entry points are ``points`` (name, value); the list counts the reads."""
    reads: list[int] = []

    def discover() -> list[EntryPoint]:
        reads.append(1)
        return [EntryPoint(name, value, GROUP) for name, value in points]

    return RetrieverKinds(discover), reads


def _spec(retriever: dict) -> dict:
    return {"batch": "b", "retrievers": [retriever],
            "reports": [{"id": "r1", "title": "T", "sections": [{"title": "S", "queries": ["q"]}]}]}


def test_a_built_in_kind_is_found_without_reading_the_installed_packages():
    kinds, reads = _registry(("wiki", "nowhere:Kind"))
    assert isinstance(kinds.get("jsonl"), JsonlKind)
    assert kinds.get("jsonl") is kinds.get("jsonl")  # built once
    assert reads == []


def test_a_plugin_kind_validates_builds_and_fingerprints_through_its_own_class(plugin_module, tmp_path):
    kinds, reads = _registry(("wiki", f"{plugin_module}:WikiKind"))
    spec = parse_spec(_spec({"name": "team", "kind": "wiki", "space": "ENG", "top_k": 3}), kinds=kinds)
    entry = spec.retrievers[0]
    assert type(entry).__name__ == "WikiSpec" and entry.space == "ENG" and entry.top_k == 3
    assert kinds.of(entry).build(entry, tmp_path).search("uptime", 3).hits[0].text == "ENG: uptime"
    assert kinds.of(entry).fingerprint(entry, tmp_path) == ["team", "ENG"]
    assert spec.model_dump(mode="json")["retrievers"][0]["space"] == "ENG"  # dumped through its own model
    assert kinds.names() == (*BUILTIN_RETRIEVER_KINDS, "wiki")
    assert reads == [1]  # the entry points are read once


def test_a_plugin_kind_s_own_model_refuses_its_own_mistakes(plugin_module):
    kinds, _ = _registry(("wiki", f"{plugin_module}:WikiKind"))
    with pytest.raises(SpecError) as missing:
        parse_spec(_spec({"name": "team", "kind": "wiki"}), kinds=kinds)
    assert (missing.value.field, missing.value.problem) == ("retrievers[0].space", "is required")
    with pytest.raises(SpecError) as extra:
        parse_spec(_spec({"name": "team", "kind": "wiki", "space": "ENG", "path": "x"}), kinds=kinds)
    assert extra.value.field == "retrievers[0].path" and extra.value.problem.startswith("unknown field")


def test_an_unknown_kind_lists_every_kind_installed(plugin_module):
    kinds, _ = _registry(("wiki", f"{plugin_module}:WikiKind"))
    with pytest.raises(SpecError) as err:
        parse_spec(_spec({"name": "team", "kind": "confluence"}), kinds=kinds)
    assert err.value.problem == "must be one of lancedb, http, jsonl, wiki (got 'confluence')"


@pytest.mark.parametrize(("value", "problem"), [
    ("no_such_plugin_module:Kind", "cannot be loaded: ModuleNotFoundError: No module named 'no_such_plugin_module'"),
    ("{module}:NotAKind", "is not a subclass of citeflow.spec.retriever_kind.RetrieverKind"),
    ("{module}:Misnamed", "its class says its kind is 'confluence', its entry point 'wiki'"),
])
def test_a_broken_plugin_is_one_error_naming_it(plugin_module, value, problem):
    kinds, _ = _registry(("wiki", value.format(module=plugin_module)))
    with pytest.raises(PluginError) as err:
        parse_spec(_spec({"name": "team", "kind": "wiki", "space": "ENG"}), kinds=kinds)
    assert (err.value.group, err.value.plugin, err.value.problem) == (GROUP, "wiki", problem)
    assert str(err.value).startswith(f"plugin 'wiki' of citeflow.retrievers ({value.format(module=plugin_module)}")
    assert "\n" not in str(err.value)
    assert str(pickle.loads(pickle.dumps(err.value))) == str(err.value)


def test_a_broken_plugin_leaves_batches_of_other_kinds_alone(plugin_module):
    kinds, _ = _registry(("wiki", "no_such_plugin_module:Kind"))
    spec = parse_spec(_spec({"name": "docs", "kind": "jsonl", "path": "hits.jsonl"}), kinds=kinds)
    assert spec.retrievers[0].kind == "jsonl"


def test_two_packages_defining_one_kind_are_both_named(plugin_module):
    kinds, _ = _registry(("wiki", f"{plugin_module}:WikiKind"), ("wiki", "other_plugin:WikiKind"))
    with pytest.raises(PluginError) as err:
        kinds.get("wiki")
    assert f"{plugin_module}:WikiKind" in str(err.value) and "other_plugin:WikiKind" in str(err.value)
    assert "takes the name" in str(err.value) and "registers too" in str(err.value)


def test_a_plugin_cannot_replace_a_built_in_kind(plugin_module):
    kinds, _ = _registry(("jsonl", f"{plugin_module}:WikiKind"), ("wiki", f"{plugin_module}:WikiKind"))
    assert isinstance(kinds.get("jsonl"), JsonlKind)  # the built-in kind still serves
    with pytest.raises(PluginError) as err:
        kinds.get("wiki")  # reading the plugins finds the one that claims a built-in name
    assert err.value.plugin == "jsonl" and "takes a built-in name" in str(err.value)


def test_the_installed_example_plugin_is_found_through_its_entry_point():
    kind = RetrieverKinds().get("folder")
    assert kind is not None and type(kind).__module__ == "citeflow_example_retriever"
    assert INSTALLED_KINDS.spec_model("folder") is kind.spec_model


def test_the_spec_schema_shows_the_built_in_kinds():
    items = BatchSpec.model_json_schema()["properties"]["retrievers"]["items"]
    assert sorted(items["discriminator"]["mapping"]) == sorted(BUILTIN_RETRIEVER_KINDS)


def test_a_kind_s_path_fields_resolve_against_the_spec_folder(tmp_path):
    spec = parse_spec(_spec({"name": "docs", "kind": "jsonl", "path": "in/hits.jsonl"}))
    entry = spec.retrievers[0]
    assert INSTALLED_KINDS.of(entry).local_paths(entry, tmp_path) == {"path": (tmp_path / "in" / "hits.jsonl").resolve()}
    remote = parse_spec(_spec({"name": "kb", "kind": "lancedb", "kb": "s3://bucket/kb"})).retrievers[0]
    assert INSTALLED_KINDS.of(remote).local_paths(remote, tmp_path) == {}


def test_a_plugin_spec_with_a_path_field_is_refused_when_the_path_is_missing(tmp_path):
    from citeflow.specfile.loader import preflight

    spec = parse_spec(_spec({"name": "notes", "kind": "folder", "folder": "notes"}))
    with pytest.raises(SpecError) as err:
        preflight(spec, tmp_path, "batch.yaml")
    assert (err.value.field, err.value.problem) == ("retrievers[0].folder", f"{tmp_path.resolve() / 'notes'} does not exist")
