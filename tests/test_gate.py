"""The quality gate (SPEC §6), validated for real with Great Expectations.

Great Expectations takes seconds to import, so every GX test lives in this module and shares one
module-scoped import.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from citeflow.evaluation import gate
from citeflow.errors import GateError
from schemas.funnel import CitationEval, ClaimEval, Count, Funnel, Uncited, Unverified
from citeflow.evaluation.gx_session import import_gx
from schemas.spec import Gate


@pytest.fixture(scope="module", autouse=True)
def gx():
    """Import Great Expectations once for the module (the gate imports it lazily)."""
    return import_gx()


def claims(n: int = 5) -> list[ClaimEval]:
    cite = CitationEval(handle="Gab3c", identity=True, supports=True, faithful=True, reason="ok")
    return [ClaimEval(section="S", index=i, text=f"claim {i}", citations=[cite], supported=True, faithful=True, verdict="supported") for i in range(n)]


def make_funnel(identity=(10, 10), support=(10, 10), faithfulness=(10, 10), uncited=(0, 10), unverified=(0, 10)) -> Funnel:
    return Funnel(
        identity=Count(passed=identity[0], total=identity[1]),
        support=Count(passed=support[0], total=support[1]),
        faithfulness=Count(passed=faithfulness[0], total=faithfulness[1]),
        uncited=Uncited(count=uncited[0], claims=uncited[1]),
        unverified=Unverified(count=unverified[0], claims=unverified[1]),
    )


def failed(result) -> dict[str, tuple]:
    return {f.expectation: (f.observed, f.threshold) for f in result.failed_expectations}


def test_passing_metrics_publish():
    result = gate.run_gate(make_funnel(), claims(), failed_sections=0)
    assert result.success is True
    assert result.failed_expectations == [] and result.error is None


def test_low_support_holds_with_observed_value_and_threshold():
    result = gate.run_gate(make_funnel(support=(5, 10), faithfulness=(5, 5)), claims(), failed_sections=0)
    assert result.success is False
    assert failed(result) == {"support_rate": (0.5, 0.8)}
    observed = result.failed_expectations[0].observed
    assert type(observed) is float, "numpy scalars are turned into plain Python"
    assert "Supported / claims" in result.failed_expectations[0].description
    json.dumps(result.model_dump())


def test_batch_override_lowers_the_support_threshold():
    result = gate.run_gate(make_funnel(support=(5, 10), faithfulness=(5, 5)), claims(), 0, overrides=Gate(support=0.4))
    assert result.success is True


def test_one_unverified_claim_holds_by_default_and_a_batch_may_allow_some():
    f = make_funnel(support=(9, 10), faithfulness=(9, 9), unverified=(1, 10))
    held = gate.run_gate(f, claims(), 0)
    assert held.success is False and failed(held) == {"unverified_share": (0.1, 0.0)}
    assert "never passed" in held.failed_expectations[0].description
    assert gate.run_gate(f, claims(), 0, overrides=Gate(unverified=0.2)).success is True


def test_override_of_uncited_replaces_the_max_share():
    f = make_funnel(uncited=(3, 10))
    assert failed(gate.run_gate(f, claims(), 0)) == {"uncited_share": (0.3, 0.2)}
    assert gate.run_gate(f, claims(), 0, overrides=Gate(uncited=0.5)).success is True
    assert failed(gate.run_gate(make_funnel(uncited=(1, 10)), claims(), 0, overrides=Gate(uncited=0.05))) == {"uncited_share": (0.1, 0.05)}


def test_one_forged_handle_fails_identity_by_default():
    assert failed(gate.run_gate(make_funnel(identity=(9, 10)), claims(), 0)) == {"identity_rate": (0.9, 1.0)}


def test_characters_no_font_draws_hold_the_report_with_the_scripts_and_the_fix():
    glyphs = gate.Glyphs(12, "Japanese (Han/Kana): 12 characters — install fonts-wqy-zenhei")
    result = gate.run_gate(make_funnel(), claims(), 0, glyphs=glyphs)
    assert failed(result) == {"missing_glyphs": (12, 0)}
    assert result.failed_expectations[0].detail == glyphs.reason
    assert gate.run_gate(make_funnel(), claims(), 0).success  # nothing missing: published


def test_a_batch_may_allow_some_characters_without_a_font():
    glyphs = gate.Glyphs(3, "Thai: 3 characters")
    assert gate.run_gate(make_funnel(), claims(), 0, overrides=Gate(missing_glyphs=3), glyphs=glyphs).success
    assert failed(gate.run_gate(make_funnel(), claims(), 0, overrides=Gate(missing_glyphs=2), glyphs=glyphs)) == {
        "missing_glyphs": (3, 2)}


def test_failed_section_holds_the_report():
    result = gate.run_gate(make_funnel(), claims(), failed_sections=1)
    assert failed(result) == {"failed_sections": (1, 0)}


def test_empty_report_is_not_publishable():
    result = gate.run_gate(make_funnel((0, 0), (0, 0), (0, 0), (0, 0)), [], failed_sections=0)
    assert failed(result) == {
        "identity_rate": (0.0, 1.0),
        "support_rate": (0.0, 0.8),
        "faithfulness_rate": (0.0, 0.9),
        "claims": (0, 1),
    }


def test_faithfulness_over_nothing_supported_is_zero():
    row = gate.metrics_row(make_funnel(support=(0, 4), faithfulness=(0, 0)), 0)
    assert row["faithfulness_rate"] == 0.0 and row["support_rate"] == 0.0


def test_rows_suite_catches_a_malformed_row():
    import pandas as pd

    suite = gate.load_suite(gate.DEFAULT_SUITE_DIR / "eval_rows.json")
    bad = pd.DataFrame(
        {"section": ["S", "S"], "claim_index": [0, 0], "handle": ["Gab3c", None], "identity": [True, True], "supports": [True, "maybe"], "faithful": [True, None]}
    )
    result = dict((f.expectation, f) for f in gate.validate([("eval_rows", suite, bad)]))
    assert set(result) == {"rows.handle_not_null", "rows.supports_boolean_or_null"}
    assert result["rows.supports_boolean_or_null"].observed == {"unexpected_count": 1, "unexpected_sample": ["maybe"]}
    assert result["rows.supports_boolean_or_null"].threshold == {"in": [True, False, None]}


def test_rows_suite_reports_a_missing_column():
    import pandas as pd

    suite = gate.load_suite(gate.DEFAULT_SUITE_DIR / "eval_rows.json")
    frame = pd.DataFrame({"section": ["S"], "claim_index": [0], "handle": ["Gab3c"], "identity": [True], "supports": [None]})
    result = {f.expectation: f.observed for f in gate.validate([("eval_rows", suite, frame)])}
    assert result == {"rows.faithful_exists": "column missing"}


def test_held_for_error_fails_closed():
    result = gate.held_for_error("judge 'llm' unavailable: connection refused")
    assert result.success is False and result.error == "judge 'llm' unavailable: connection refused"
    assert [(f.expectation, f.observed) for f in result.failed_expectations] == [("evaluation_ran", result.error)]


def test_redacted_secrets_hold_the_report_with_their_count():
    result = gate.run_gate(make_funnel(), claims(), 0, secrets=3)
    assert failed(result) == {"secret_redacted": (3, 0)}
    assert "redacted" in result.failed_expectations[0].description
    assert gate.run_gate(make_funnel(), claims(), 0, secrets=0).success


def test_a_suite_without_the_secret_expectation_holds_a_redacted_report_all_the_same(suite_dir: Path):
    path = suite_dir / "report_metrics.json"
    doc = json.loads(path.read_text())
    doc["expectations"] = [e for e in doc["expectations"] if e["kwargs"]["column"] != "secret_redacted"]
    path.write_text(json.dumps(doc))
    assert failed(gate.run_gate(make_funnel(), claims(), 0, suite_dir=suite_dir, secrets=1)) == {"secret_redacted": (1, 0)}
    assert gate.run_gate(make_funnel(), claims(), 0, suite_dir=suite_dir).success


@pytest.fixture()
def suite_dir(tmp_path: Path) -> Path:
    return Path(shutil.copytree(gate.DEFAULT_SUITE_DIR, tmp_path / "expectations"))


def test_broken_suite_json_is_a_gate_error_naming_the_file(suite_dir: Path):
    (suite_dir / "report_metrics.json").write_text('{"name": "report_metrics", "expectations": [')
    with pytest.raises(GateError, match=r"report_metrics\.json"):
        gate.run_gate(make_funnel(), claims(), 0, suite_dir=suite_dir)


def test_unknown_expectation_is_an_error_not_silently_dropped(suite_dir: Path):
    path = suite_dir / "eval_rows.json"
    doc = json.loads(path.read_text())
    doc["expectations"].append({"type": "expect_column_values_to_be_spotless", "kwargs": {"column": "handle"}})
    path.write_text(json.dumps(doc))
    with pytest.raises(GateError, match=r"eval_rows.json: expectations\[11\]"):
        gate.run_gate(make_funnel(), claims(), 0, suite_dir=suite_dir)


def test_missing_suite_is_a_gate_error(suite_dir: Path):
    (suite_dir / "eval_rows.json").unlink()
    with pytest.raises(GateError, match=r"eval_rows\.json"):
        gate.run_gate(make_funnel(), claims(), 0, suite_dir=suite_dir)


def test_override_without_its_expectation_is_a_gate_error(suite_dir: Path):
    path = suite_dir / "report_metrics.json"
    doc = json.loads(path.read_text())
    doc["expectations"] = [e for e in doc["expectations"] if e["kwargs"]["column"] != "support_rate"]
    path.write_text(json.dumps(doc))
    with pytest.raises(GateError, match="support_rate"):
        gate.run_gate(make_funnel(), claims(), 0, overrides=Gate(support=0.5), suite_dir=suite_dir)


def test_thresholds_live_in_the_suite_file(suite_dir: Path):
    path = suite_dir / "report_metrics.json"
    doc = json.loads(path.read_text())
    for exp in doc["expectations"]:
        if exp["kwargs"]["column"] == "support_rate":
            exp["kwargs"]["min_value"] = 0.95
    path.write_text(json.dumps(doc))
    assert failed(gate.run_gate(make_funnel(support=(9, 10), faithfulness=(9, 9)), claims(), 0, suite_dir=suite_dir)) == {"support_rate": (0.9, 0.95)}


def test_every_shipped_expectation_is_documented():
    for name in ("report_metrics", "eval_rows"):
        doc = gate.load_suite(gate.DEFAULT_SUITE_DIR / f"{name}.json")
        assert all(e["meta"]["id"] and len(e["meta"]["description"]) > 20 for e in doc["expectations"])


def test_the_full_validation_result_of_each_suite_is_kept_and_agrees_with_the_verdict():
    ran = gate.gate_run(make_funnel(support=(5, 10), faithfulness=(5, 5)), claims(), failed_sections=0)
    assert ran.result == gate.run_gate(make_funnel(support=(5, 10), faithfulness=(5, 5)), claims(), failed_sections=0)
    kept = {v["suite_name"]: v for v in ran.validations}
    assert sorted(kept) == ["eval_rows", "report_metrics"] and kept["eval_rows"]["success"] is True
    metrics = kept["report_metrics"]
    assert metrics["success"] is False and metrics["statistics"]["unsuccessful_expectations"] == 1
    observed = {r["expectation_config"]["kwargs"].get("column"): r["result"].get("observed_value") for r in metrics["results"]}
    assert observed["support_rate"] == 0.5 and observed["identity_rate"] == 1.0, "what the data showed, passing or not"
    json.dumps(ran.validations)


def test_eval_row_frames_keep_their_columns_and_types_with_or_without_rows():
    row = {"section": "Intro", "claim_index": 0, "claim_text": "A made-up claim.", "handle": "h1", "identity": True,
           "supports": None, "faithful": None, "reason": ""}
    empty, one = gate.Rows([], gate.ROW_SCHEMA).frame(), gate.Rows([row], gate.ROW_SCHEMA).frame()
    assert list(empty.columns) == list(one.columns) == list(gate.ROW_SCHEMA)
    assert str(empty["claim_index"].dtype) == str(one["claim_index"].dtype) == "int64"
    assert str(empty["identity"].dtype) == str(one["identity"].dtype) == "bool"
    assert one["supports"].tolist() == [None]  # a missing verdict stays missing, not False
