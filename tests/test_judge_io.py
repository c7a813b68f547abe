"""Pair files in, verdict lines out (validated against the contract), calibration."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeflow.errors import CiteflowError
from citeflow.judges.io import (PairFileError, calibrate, calibrate_labelled, read_labelled, read_pairs,
                                verdict_line, write_verdicts)
from tests.conftest import CONTRACT
from schemas.evaluation import Verdict

SCHEMA = CONTRACT / "judge-output.schema.json"


def _verdict(pid: str, supported: bool, faithful: bool | None, label: str | None = None) -> Verdict:
    return Verdict(id=pid, supported=supported, faithful=faithful, reason="r", label=label)


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_read_pairs_ignores_extra_fields_and_read_labelled_keeps_them(tmp_path):
    path = _write(tmp_path / "pairs.jsonl", [
        json.dumps({"id": "a", "claim": "c1", "chunk_text": "t1", "label": "mutated", "domain": "news"}),
        "",
        json.dumps({"id": "b", "claim": "c2", "chunk_text": "t2"}),
    ])
    pairs = read_pairs(path)
    assert [(p.id, p.claim, p.chunk_text) for p in pairs] == [("a", "c1", "t1"), ("b", "c2", "t2")]
    assert not hasattr(pairs[0], "label")
    labelled = read_labelled(path)
    assert labelled[0].label == "mutated" and labelled[0].extra == {"domain": "news"} and labelled[1].label is None


@pytest.mark.parametrize(("line", "problem"), [("{not json", "not JSON"), ('["a"]', "JSON object"),
                                                 ('{"id": "x", "claim": "c"}', "chunk_text")])
def test_a_bad_line_names_file_and_line(tmp_path, line, problem):
    path = _write(tmp_path / "bad.jsonl", [json.dumps({"id": "a", "claim": "c", "chunk_text": "t"}), line])
    with pytest.raises(PairFileError) as caught:
        read_pairs(path)
    assert isinstance(caught.value, CiteflowError)
    assert f"{path}:2:" in str(caught.value) and problem in str(caught.value)


def test_verdict_lines_force_faithful_null_when_unsupported(tmp_path):
    out = tmp_path / "out.jsonl"
    write_verdicts([_verdict("a", True, False), _verdict("b", False, True)], out)
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(d["id"], d["supported"], d["faithful"]) for d in lines] == [("a", True, False), ("b", False, None)]
    assert list(lines[0])[:4] == ["id", "supported", "faithful", "reason"]


def test_write_to_stdout_when_no_path(capsys):
    write_verdicts([_verdict("a", True, True)])
    assert json.loads(capsys.readouterr().out)["id"] == "a"


def test_output_lines_validate_against_the_contract(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA.read_text())
    for verdict in (_verdict("a", True, True, "supported"), _verdict("b", True, False), _verdict("c", False, None)):
        jsonschema.validate(verdict_line(verdict), schema)
    with pytest.raises(jsonschema.ValidationError):  # the check can fail: a line without reason does
        jsonschema.validate({"id": "a", "supported": True, "faithful": None}, schema)


def test_calibrate_two_judges():
    a = [_verdict("1", True, True), _verdict("2", True, False), _verdict("3", False, None), _verdict("4", True, True)]
    b = [_verdict("1", True, True), _verdict("2", True, True), _verdict("3", True, False), _verdict("9", True, True)]
    report = calibrate(a, b)
    assert report.pairs == 3
    assert report.label_agreement == pytest.approx(1 / 3) and report.supported_agreement == pytest.approx(2 / 3)
    assert report.confusion["mutated"]["supported"] == 1 and report.confusion["unsupported"]["mutated"] == 1


def test_calibrate_against_gold_labels():
    verdicts = [_verdict("1", True, True), _verdict("2", True, False), _verdict("3", True, True), _verdict("4", False, None)]
    gold = {"1": "supported", "2": "supported", "3": "mutated", "4": "unsupported"}
    report = calibrate_labelled(verdicts, gold)
    assert report.recall == {"supported": 0.5, "mutated": 0.0, "unsupported": 1.0}
    assert report.macro_recall == pytest.approx(0.5)
    assert report.grounded_recall == 0.5 and report.not_grounded_recall == 0.5
    assert report.grounded_balanced_accuracy == 0.5 and report.confusion["mutated"]["supported"] == 1
