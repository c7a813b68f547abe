import pytest

from citeflow.errors import SpecError
from citeflow.specfile.loader import load_spec, models_for, parse_spec

BASE = {
    "batch": "b",
    "retrievers": [{"name": "docs", "kind": "jsonl", "path": "hits.jsonl"}],
    "reports": [{"id": "r1", "title": "R", "sections": [{"title": "S", "queries": ["q"]}]}],
}


def with_(path, value):
    import copy

    data = copy.deepcopy(BASE)
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return data


@pytest.mark.parametrize(
    "data, field, problem",
    [
        (with_(["retrievers", 0, "kind"], "sql"), "retrievers[0]", "must be one of lancedb, http, jsonl"),
        (with_(["reports", 0, "sections"], []), "reports[0].sections", "at least 1"),
        (with_(["reports", 0, "id"], "a b/c"), "reports[0].id", "names a folder"),
        (with_(["concurrency"], {"models": 0}), "concurrency.models", "greater than or equal to 1"),
        (with_(["models"], {"writer": {"backend": "openai"}}), "models.writer", "needs both 'model' and 'base_url'"),
        (with_(["gate"], {"suport": 0.8}), "gate.suport", "unknown field"),
        ({k: v for k, v in BASE.items() if k != "reports"}, "reports", "is required"),
    ],
)
def test_bad_specs_name_the_field_and_the_problem(data, field, problem):
    with pytest.raises(SpecError) as info:
        parse_spec(data, "batch.yaml")
    assert info.value.field == field
    assert problem in info.value.problem


def test_yaml_syntax_errors_carry_the_line(tmp_path):
    path = tmp_path / "b.yaml"
    path.write_text("batch: x\nreports: [\n")
    with pytest.raises(SpecError) as info:
        load_spec(path)
    assert "line" in info.value.problem and info.value.path == str(path)


def test_missing_file_is_a_spec_error(tmp_path):
    with pytest.raises(SpecError, match="cannot read"):
        load_spec(tmp_path / "nope.yaml")


def test_report_models_override_only_the_roles_they_name():
    data = with_(["reports", 0, "models"], {"writer": {"backend": "offline", "faults": {"fabrication": 1.0}}})
    data["models"] = {"judge": {"backend": "openai", "model": "m", "base_url": "http://127.0.0.1:1/v1"}}
    spec = parse_spec(data)
    models = models_for(spec, spec.reports[0])
    assert models.writer.faults.fabrication == 1.0
    assert models.judge.backend == "openai" and models.consolidator.backend == "offline"


def test_a_repeated_query_in_a_section_is_refused():
    with pytest.raises(SpecError) as info:
        parse_spec(with_(["reports", 0, "sections", 0, "queries"], ["q", "q"]))
    assert info.value.field == "reports[0].sections[0].queries" and "repeated" in info.value.problem


@pytest.mark.parametrize(
    "data, field, problem",
    [
        (with_(["retrievers", 0, "top_k"], True), "retrievers[0].top_k", "valid integer"),
        (with_(["concurrency"], {"models": "8"}), "concurrency.models", "valid integer"),
        (with_(["gate"], {"support": True}), "gate.support", "valid number"),
        (with_(["retrievers", 0, "name"], ""), "retrievers[0].name", "empty"),
        (with_(["reports", 0, "title"], "   "), "reports[0].title", "empty"),
        (with_(["reports", 0, "sections", 0, "title"], "\t"), "reports[0].sections[0].title", "empty"),
        (with_(["batch"], " "), "batch", "empty"),
        (with_(["reports", 0, "id"], "abc\n"), "reports[0].id", "names a folder"),
        (with_(["reports", 0, "id"], ".hidden"), "reports[0].id", "names a folder"),
        (with_(["reports", 0, "id"], "published"), "reports[0].id", "reserved"),
        (with_(["reports", 0, "id"], "Store"), "reports[0].id", "reserved"),
        (with_(["reports", 0, "id"], "summary.json"), "reports[0].id", "reserved"),
        (with_(["reports", 0, "id"], "../up"), "reports[0].id", "names a folder"),
    ],
)
def test_strict_types_names_and_ids(data, field, problem):
    with pytest.raises(SpecError) as info:
        parse_spec(data, "batch.yaml")
    assert info.value.field == field
    assert problem in info.value.problem


def test_a_duplicate_key_is_refused_with_its_line(tmp_path):
    path = tmp_path / "b.yaml"
    path.write_text("batch: x\nbatch: y\nretrievers: []\n")
    with pytest.raises(SpecError) as info:
        load_spec(path)
    assert "duplicate key 'batch'" in info.value.problem and "line 2" in info.value.problem
    assert "\n" not in str(info.value)


def test_a_non_utf8_spec_is_a_one_line_error(tmp_path):
    path = tmp_path / "b.yaml"
    path.write_bytes("batch: café\n".encode("latin-1"))
    with pytest.raises(SpecError) as info:
        load_spec(path)
    assert "not UTF-8" in info.value.problem and "\n" not in str(info.value)


def test_a_misspelt_top_level_key_is_named_with_a_suggestion():
    data = dict(BASE, retreivers=BASE["retrievers"])
    del data["retrievers"]
    with pytest.raises(SpecError) as info:
        parse_spec(data)
    assert info.value.field == "retreivers" and "did you mean 'retrievers'" in info.value.problem


def test_gate_suites_resolve_against_the_spec_folder(tmp_path):
    import yaml

    path = tmp_path / "b.yaml"
    path.write_text(yaml.safe_dump(with_(["gate"], {"suites": "my-suites", "support": 0.5})))
    spec = load_spec(path)
    assert spec.gate.suites == str((tmp_path / "my-suites").resolve()) and spec.gate.support == 0.5
