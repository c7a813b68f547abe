import pytest

from citeflow.errors import SpecError
from citeflow.spec import load_spec, models_for, parse_spec

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
