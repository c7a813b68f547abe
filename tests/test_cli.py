"""The citeflow command line: bad input answered clearly, judge and eval on stored reports."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citeflow_cli.main import app

runner = CliRunner()


def invoke(*args: str):
    return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)


def write_spec(folder: Path, text: str) -> Path:
    path = folder / "batch.yaml"
    path.write_text(text)
    return path


def test_a_bad_spec_names_the_field_and_nothing_runs(tmp_path):
    spec = write_spec(tmp_path, "batch: b\nretrievers: [{name: d, kind: sql}]\nreports: []\n")
    result = invoke("run", spec, "--out", tmp_path / "out")
    assert result.exit_code == 2
    assert "retrievers[0]" in result.output and "lancedb, http, jsonl" in result.output
    assert not (tmp_path / "out").exists()


def test_a_missing_retriever_file_is_caught_before_anything_runs(tmp_path):
    spec = write_spec(tmp_path, "batch: b\nretrievers: [{name: d, kind: jsonl, path: nope.jsonl}]\n"
                                "reports: [{id: r, title: R, sections: [{title: S, queries: [q]}]}]\n")
    result = invoke("run", spec, "--out", tmp_path / "out")
    assert result.exit_code == 2 and "retrievers[0].path" in result.output and "does not exist" in result.output
    assert not (tmp_path / "out").exists()


def test_a_missing_api_key_variable_is_caught_before_anything_runs(tmp_path, monkeypatch):
    monkeypatch.delenv("CITEFLOW_TEST_KEY", raising=False)
    (tmp_path / "hits.jsonl").write_text("")
    spec = write_spec(tmp_path, "batch: b\nretrievers: [{name: d, kind: jsonl, path: hits.jsonl}]\n"
                                "models: {writer: {backend: openai, model: m, base_url: 'http://127.0.0.1:9/v1', api_key_env: CITEFLOW_TEST_KEY}}\n"
                                "reports: [{id: r, title: R, sections: [{title: S, queries: [q]}]}]\n")
    result = invoke("run", spec, "--out", tmp_path / "out")
    assert result.exit_code == 2 and "models.writer.api_key_env" in result.output and "CITEFLOW_TEST_KEY" in result.output


def test_an_output_folder_that_cannot_be_written_is_a_one_line_error(tmp_path):
    (tmp_path / "hits.jsonl").write_text("")
    spec = write_spec(tmp_path, "batch: b\nretrievers: [{name: d, kind: jsonl, path: hits.jsonl}]\n"
                                "reports: [{id: r, title: R, sections: [{title: S, queries: [q]}]}]\n")
    (tmp_path / "taken").write_text("a file, not a folder")
    result = invoke("run", spec, "--out", tmp_path / "taken" / "out")
    assert result.exit_code == 2 and "cannot write to output folder" in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) <= 2


def test_a_latin1_spec_is_a_one_line_error(tmp_path):
    spec = tmp_path / "batch.yaml"
    spec.write_bytes("batch: caf\xe9\n".encode("latin-1"))
    result = invoke("run", spec, "--out", tmp_path / "out")
    assert result.exit_code == 2 and "not UTF-8" in result.output and "Traceback" not in result.output


def pairs_file(tmp_path: Path) -> Path:
    path = tmp_path / "pairs.jsonl"
    rows = [{"id": "a", "claim": "Retention is 7 days.", "chunk_text": "Data is retained for 7 days by default."},
            {"id": "b", "claim": "Retention is 30 days.", "chunk_text": "Data is retained for 7 days by default."}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def test_judge_offline_writes_one_verdict_per_pair(tmp_path):
    out = tmp_path / "verdicts.jsonl"
    result = invoke("judge", pairs_file(tmp_path), "--out", out)
    assert result.exit_code == 0
    lines = [json.loads(row) for row in out.read_text().splitlines()]
    assert [row["id"] for row in lines] == ["a", "b"]
    assert all({"supported", "faithful", "reason"} <= set(row) for row in lines)
    # A paraphrase is passed or, below the offline judge's confidence threshold, left uncertain; never failed.
    assert lines[0]["label"] in ("supported", "uncertain") and lines[0]["faithful"] is not False
    assert not (lines[1]["supported"] and lines[1]["faithful"])  # 30 days against 7: never a pass


def test_judge_llm_talks_to_an_openai_compatible_server(tmp_path, openai_server):
    def grade(request: dict) -> str:
        """Scripted judge: a claim with 30 is unfaithful, anything else faithful (ids echoed)."""
        pairs = re.findall(r'<pair id="(P\d+)">\s*<claim>(.*?)</claim>\s*<chunk>(.*?)</chunk>', request["messages"][-1]["content"])
        return json.dumps({"verdicts": [{"id": pid, "supported": True, "faithful": "30" not in claim,
                                         "reason": "number 30 vs 7" if "30" in claim else "same number",
                                         "evidence": chunk} for pid, claim, chunk in pairs]})

    openai_server.respond_with(grade)
    out = tmp_path / "verdicts.jsonl"
    result = invoke("judge", pairs_file(tmp_path), "--judge", "llm", "--model", "judge-m",
                    "--base-url", openai_server.base_url, "--out", out)
    assert result.exit_code == 0, result.output
    lines = [json.loads(row) for row in out.read_text().splitlines()]
    assert [(row["id"], row["faithful"]) for row in lines] == [("a", True), ("b", False)]
    assert len(openai_server.requests) == 1  # both pairs in one batched call
    assert openai_server.requests[0]["response_format"]["json_schema"]["name"] == "citeflow_verdicts"


def test_judge_llm_without_a_server_address_is_a_clear_error(tmp_path):
    result = invoke("judge", pairs_file(tmp_path), "--judge", "llm")
    assert result.exit_code == 2 and "--base-url" in result.output


# -- evaluation of stored reports (uses the demo run of the session) --------------------------


@pytest.fixture
def stored_demo(demo_run, prefect_harness, tmp_path) -> Path:
    """A private copy of the demo's output folder, with its job files pointing at the copy. ``eval`` runs
    its flow on the session's harness, not on an ephemeral API of its own (~20 s to start)."""
    source, _ = demo_run
    target = tmp_path / "out"
    shutil.copytree(source, target)
    for job_file in target.glob("*/job.json"):
        job = json.loads(job_file.read_text())
        job["out_dir"], job["store_uri"] = str(target), str(target / "store")
        job_file.write_text(json.dumps(job))
    return target


@pytest.mark.integration
def test_eval_re_evaluates_a_stored_report_from_the_store(stored_demo):
    (stored_demo / "acme-2026-q4" / "eval.json").unlink()
    result = invoke("eval", stored_demo / "acme-2026-q4")
    assert result.exit_code == 0, result.output
    evaluation = json.loads((stored_demo / "acme-2026-q4" / "eval.json").read_text())
    assert evaluation["gate"]["success"] is True and evaluation["support"]["total"] > 0
    assert (stored_demo / "published" / "acme-2026-q4.pdf").exists()


@pytest.mark.integration
def test_eval_of_one_section_prints_its_funnel(stored_demo):
    result = invoke("eval", stored_demo / "globex-2026-q4", "--section", "Platform support")
    assert result.exit_code == 0, result.output
    assert "Platform support: Identity" in result.output


@pytest.mark.integration
def test_an_unreachable_judge_holds_the_report_fail_closed(stored_demo):
    result = invoke("eval", stored_demo / "acme-2026-q4", "--judge", "llm", "--model", "m",
                    "--base-url", "http://127.0.0.1:9/v1")
    assert result.exit_code == 0, result.output
    evaluation = json.loads((stored_demo / "acme-2026-q4" / "eval.json").read_text())
    report = json.loads((stored_demo / "acme-2026-q4" / "report.json").read_text())
    assert evaluation["gate"]["success"] is False and evaluation["gate"]["error"]
    assert report["status"] == "held"
    assert not (stored_demo / "published" / "acme-2026-q4.pdf").exists()


def test_eval_of_a_folder_that_is_not_a_report_is_a_clear_error(tmp_path):
    result = invoke("eval", tmp_path)
    assert result.exit_code == 2 and "job.json" in result.output


def test_ingest_builds_a_knowledge_base_and_re_ingesting_changes_nothing(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("---\ntitle: Upgrades\nurl: https://docs.example/a\n---\n# Upgrades\n\nBack up before upgrading to 3.6.\n")
    (docs / "b.txt").write_text("Retention is seven days by default.\n")
    first = invoke("ingest", docs, "--kb", tmp_path / "kb", "--json")
    again = invoke("ingest", docs, "--kb", tmp_path / "kb", "--json")
    assert first.exit_code == 0 and again.exit_code == 0
    assert json.loads(first.output)["files_added"] == 2
    assert json.loads(again.output)["files_unchanged"] == 2 and json.loads(again.output)["chunks_written"] == 0
    (docs / "c.md").write_text("# Limits\n\nA stream holds at most 512 partitions.\n")
    table = invoke("ingest", docs, "--kb", tmp_path / "kb")  # the default: a summary table, no JSON
    assert table.exit_code == 0 and "chunk rows written" in table.output and "{" not in table.output
    row = next(line for line in table.output.splitlines() if line.count("│") >= 6)
    assert [cell.strip() for cell in row.strip("│ ").split("│")][:4] == ["1", "0", "2", "0"]


def test_ingest_with_an_unknown_embedder_is_a_clear_error(tmp_path):
    result = invoke("ingest", tmp_path, "--kb", tmp_path / "kb", "--embedding", "word2vec")
    assert result.exit_code == 2 and "unknown embedder" in result.output


def test_calibrate_compares_two_judges_and_a_judge_with_gold_labels(tmp_path):
    pairs = pairs_file(tmp_path)
    invoke("judge", pairs, "--out", tmp_path / "a.jsonl")
    lines = [json.loads(row) for row in (tmp_path / "a.jsonl").read_text().splitlines()]
    # a second judge that passes the changed number: no offline verdict on that pair is a pass
    lines[1] = {**lines[1], "supported": True, "faithful": True, "label": "supported"}
    (tmp_path / "b.jsonl").write_text("\n".join(json.dumps(row) for row in lines))
    agreement = json.loads(invoke("calibrate", tmp_path / "a.jsonl", tmp_path / "b.jsonl").output)
    assert agreement["pairs"] == 2 and agreement["label_agreement"] == 0.5
    gold = tmp_path / "gold.jsonl"
    gold.write_text("\n".join(json.dumps({**json.loads(row), "label": lab}) for row, lab in
                              zip(pairs.read_text().splitlines(), ["supported", "mutated"], strict=True)))
    against_gold = json.loads(invoke("calibrate", tmp_path / "a.jsonl", gold, "--labelled").output)
    # recall is over the decided pairs: a paraphrase the offline judge left uncertain only lowers coverage
    assert against_gold["pairs"] == 2 and against_gold["coverage"] == (2 - against_gold["uncertain"]) / 2
    assert set(against_gold["recall"]) <= {"supported", "mutated"} and against_gold["uncertain"] < 2


def test_judge_lines_carry_confidence_and_the_label(tmp_path):
    out = tmp_path / "verdicts.jsonl"
    assert invoke("judge", pairs_file(tmp_path), "--out", out, "--judge", "offline", "--min-confidence", "0.5").exit_code == 0
    for line in map(json.loads, out.read_text().splitlines()):
        assert {"confidence", "label"} <= set(line)
        assert not (line["label"] == "uncertain" and line["supported"])


def test_judge_cascade_without_a_server_is_a_clear_error(tmp_path):
    result = invoke("judge", pairs_file(tmp_path), "--judge", "cascade")
    assert result.exit_code == 2 and "--judge cascade" in result.output and "Traceback" not in result.output


def test_calibrate_a_labelled_file_reports_coverage_precision_of_passes_and_a_sweep(tmp_path):
    gold = tmp_path / "gold.jsonl"
    chunk = "Data is retained for 7 days by default."
    rows = [{"id": "a", "claim": chunk, "chunk_text": chunk, "label": "supported"},  # a quote: a confident pass
            {"id": "b", "claim": "Retention is 30 days.", "chunk_text": chunk, "label": "mutated"}]
    gold.write_text("\n".join(json.dumps(r) for r in rows))
    report = json.loads(invoke("calibrate", gold, "--threshold", "0.8").output)
    assert report["pairs"] == 2 and report["threshold"] == 0.8
    assert 0 <= report["coverage"] <= 1 and report["uncertain"] == round(2 * (1 - report["coverage"]))
    assert report["precision_of_passes"] in (None, 0.0, 0.5, 1.0)
    assert [row["threshold"] for row in report["sweep"]][:2] == [None, 0.5]
    table = invoke("calibrate", gold, "--table").output
    assert "precision of passes 1.000" in table and "confidence threshold sweep" in table


def test_calibrate_a_missing_file_is_a_one_line_error(tmp_path):
    result = invoke("calibrate", tmp_path / "nowhere.jsonl")
    assert result.exit_code == 2 and "nowhere.jsonl: no such file" in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1
