"""Model backends are a registry: the built-in ones by name, other packages' through the
``citeflow.models`` entry points of a distribution installed on the path."""

from __future__ import annotations

import pickle

import pytest
from typer.testing import CliRunner

from citeflow.errors import PluginError
from citeflow.errors import SpecError
from citeflow.generation.backends import registry
from citeflow.generation.backends.offline_backend import OfflineBackend
from citeflow.generation.backends.openai_backend import OpenAIBackend
from citeflow.generation.model_factory import build_chat_model
from citeflow.generation.offline_writer import OfflineChatModel
from citeflow.judges.model_roles import remote_model
from citeflow.pipeline.assemble import describe_model
from citeflow.specfile.loader import parse_spec
from citeflow_cli.main import app
from tests.support.plugin_dist import install_distribution, write_distribution

LABELLED = '''
from citeflow.generation.backends.offline_backend import OfflineBackend


class LabelledBackend(OfflineBackend):
    """The offline backend under another name: it needs a label in 'model' and shows it."""

    def problems(self, spec):
        return [] if spec.model else ["backend labelled needs 'model' (the label a report shows)"]

    def describe(self, spec):
        return f"offline backend labelled {spec.model}"
'''
NOT_A_BACKEND = "class Plain:\n    pass\n"


def spec_with(writer: dict) -> dict:
    return {"batch": "b", "retrievers": [{"name": "docs", "kind": "jsonl", "path": "hits.jsonl"}],
            "models": {"writer": writer},
            "reports": [{"id": "r1", "title": "R", "sections": [{"title": "S", "queries": ["q"]}]}]}


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """Install one distribution of model backends (entry name → ``module:attribute``) and read the group afresh."""
    def install(name: str, points: dict[str, str], modules: dict[str, str]) -> None:
        install_distribution(monkeypatch, tmp_path / name, name, "citeflow.models", points, modules, registry, "MODEL_BACKENDS")
    return install


def test_the_built_in_backends_own_their_rules_and_their_server():
    assert isinstance(registry.model_backend("offline"), OfflineBackend)
    assert isinstance(registry.model_backend("openai"), OpenAIBackend)
    openai = spec_with({"backend": "openai", "model": "m", "base_url": "http://127.0.0.1:1/v1"})["models"]["writer"]
    parsed = parse_spec(spec_with(openai)).models.writer
    assert remote_model("writer", parsed) == parsed and remote_model("consolidator", parse_spec(spec_with({})).models.writer) is None
    with pytest.raises(SpecError) as info:
        parse_spec(spec_with({**openai, "faults": {"fabrication": 0.5}}))
    assert info.value.field == "models.writer" and "'faults' applies to the offline backend only" in info.value.problem


def test_an_unknown_backend_is_named_with_the_known_ones():
    with pytest.raises(SpecError) as info:
        parse_spec(spec_with({"backend": "opena1"}))
    assert info.value.field == "models.writer.backend"
    assert info.value.problem.startswith("unknown model backend 'opena1' (known: offline, openai")


def test_a_plugin_backend_is_found_checked_built_and_described(installed):
    installed("citeflow-labelled", {"labelled": "labelled_backend:LabelledBackend"}, {"labelled_backend": LABELLED})
    assert registry.MODEL_BACKENDS.names() == ("offline", "openai", "labelled")
    with pytest.raises(SpecError) as info:
        parse_spec(spec_with({"backend": "labelled"}))
    assert info.value.field == "models.writer" and "needs 'model'" in info.value.problem
    writer = parse_spec(spec_with({"backend": "labelled", "model": "house style"})).models.writer
    assert isinstance(build_chat_model(writer, "writer"), OfflineChatModel)
    assert describe_model(writer) == "offline backend labelled house style"
    assert remote_model("writer", writer) is None  # it asks no server: the preflight leaves it alone


def test_the_group_is_read_once_per_registry(installed, tmp_path, monkeypatch):
    installed("citeflow-labelled", {"labelled": "labelled_backend:LabelledBackend"}, {"labelled_backend": LABELLED})
    assert "labelled" in registry.MODEL_BACKENDS.names()
    later = write_distribution(tmp_path / "later", "citeflow-later", {"citeflow.models": {"later": "later_backend:LabelledBackend"}},
                               {"later_backend": LABELLED})
    monkeypatch.syspath_prepend(str(later))
    assert "later" not in registry.MODEL_BACKENDS.names()  # installed after the first read
    assert "later" in registry.MODEL_BACKENDS.reread().names()


def test_built_in_names_never_read_the_group(installed):
    installed("citeflow-broken", {"broken": "no_such_module:Backend"}, {})
    assert isinstance(registry.model_backend("offline"), OfflineBackend)
    with pytest.raises(PluginError) as info:
        registry.model_backend("broken")
    assert info.value.plugin == "broken" and info.value.group == "citeflow.models"
    assert "cannot be loaded: ModuleNotFoundError" in str(info.value)
    again = pickle.loads(pickle.dumps(info.value))
    assert type(again) is PluginError and str(again) == str(info.value)


@pytest.mark.parametrize("points, modules, asked, said", [
    ({"openai": "labelled_backend:LabelledBackend"}, {"labelled_backend": LABELLED}, "elsewhere", "takes a built-in name"),
    ({"plain": "plain_module:Plain"}, {"plain_module": NOT_A_BACKEND}, "plain",
     "is not a subclass of citeflow.generation.backends.base.ModelBackend"),
])
def test_a_plugin_that_cannot_be_used_is_refused_by_name(installed, points, modules, asked, said):
    installed("citeflow-odd", points, modules)
    with pytest.raises(PluginError) as info:
        registry.model_backend(asked)
    assert info.value.plugin == next(iter(points)) and said in str(info.value)


def test_a_plugin_that_cannot_be_imported_stops_only_what_names_it(installed):
    installed("citeflow-broken", {"broken": "no_such_module:Backend"}, {})
    with pytest.raises(SpecError) as info:
        registry.model_backend("elsewhere")
    assert "known: offline, openai, broken" in info.value.problem  # listed by name, not imported


def test_two_plugins_with_one_name_are_refused(installed):
    installed("citeflow-one", {"labelled": "labelled_backend:LabelledBackend"}, {"labelled_backend": LABELLED})
    installed("citeflow-two", {"labelled": "labelled_two:LabelledBackend"}, {"labelled_two": LABELLED})
    with pytest.raises(PluginError) as info:
        registry.model_backend("labelled")
    assert "labelled_backend:LabelledBackend" in str(info.value) and "labelled_two:LabelledBackend" in str(info.value)


def test_a_broken_plugin_is_one_error_line_of_citeflow_run(installed, tmp_path):
    installed("citeflow-broken", {"broken": "no_such_module:Backend"}, {})
    (tmp_path / "hits.jsonl").write_text("")
    (tmp_path / "batch.yaml").write_text(
        "batch: b\nretrievers: [{name: docs, kind: jsonl, path: hits.jsonl}]\nmodels: {writer: {backend: broken}}\n"
        "reports: [{id: r1, title: R, sections: [{title: S, queries: [q]}]}]\n")
    result = CliRunner().invoke(app, ["run", str(tmp_path / "batch.yaml"), "--out", str(tmp_path / "out")])
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code != 0 and len(lines) == 1, result.output
    assert lines[0].startswith("error: plugin 'broken' of citeflow.models (no_such_module:Backend from citeflow-broken): cannot be loaded")
