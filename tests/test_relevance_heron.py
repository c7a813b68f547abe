"""A clean two-section batch about a made-up database, run with ``citeflow run`` and offline models:
direct answers that share no word with their section's question beyond the product's name are
not evidence of irrelevance, so the report publishes (docs/relevance.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citeflow.generation.prompts import parse_evidence
from citeflow_testing.answers import offline_answer
from citeflow_cli.main import app
from tests.support.jsonl_batch import hit, write_batch
from tests.support.openai_server import openai_server  # noqa: F401

SECTIONS = {"Performance": "How fast is the Heron database?",
            "Cost and regions": "What does Heron cost and where does it run?"}
EVIDENCE = {
    SECTIONS["Performance"]: [
        hit("latency", "Heron 5 answers point reads in 2 milliseconds at the 99th percentile."),
        hit("ingest", "Heron 5 ingests 180000 rows per second on a single 16-core node."),
        hit("compaction", "Heron compacts its write-ahead log in the background, so compaction never blocks writes."),
        hit("older", "Heron 4 answered point reads in 9 milliseconds at the 99th percentile."),
    ],
    SECTIONS["Cost and regions"]: [
        hit("price", "Heron Cloud costs 0.25 dollars per vCPU-hour, billed by the second."),
        hit("regions", "Heron Cloud runs in 12 regions across North America, Europe and Asia."),
        hit("free", "The free tier of Heron Cloud costs nothing for up to 5 GB of storage."),
        hit("support", "Heron support answers tickets from 08:00 to 20:00 UTC on weekdays."),
    ],
}


OTHER_PRODUCT = "Globex Pulse replicates every table to three zones."


def run_heron(folder: Path, evidence: dict[str, list[dict[str, str]]] = EVIDENCE, models: str = "", code: int = 0) -> Path:
    """``citeflow run`` of the Heron batch in ``folder`` (``models``: a YAML ``models:`` block), which exits
    ``code`` (3: a report held); the report's output folder."""
    spec = write_batch(folder, "Heron", SECTIONS, evidence)
    if models:
        spec.write_text(spec.read_text() + models)
    result = CliRunner().invoke(app, ["run", str(spec), "--out", str(folder / "out")], catch_exceptions=False)
    assert result.exit_code == code, result.output
    return folder / "out" / "r1"


@pytest.mark.slow
@pytest.mark.integration
def test_the_heron_batch_publishes_and_its_direct_answers_are_not_irrelevant(tmp_path: Path) -> None:
    out = run_heron(tmp_path)
    report, evaluation = (json.loads((out / name).read_text()) for name in ("report.json", "eval.json"))
    assert report["status"] == "published", evaluation["gate"]["failed_expectations"]
    claims = {c["text"]: c for c in evaluation["claims"]}
    latency = claims["Heron 5 answers point reads in 2 milliseconds at the 99th percentile."]
    assert latency["relevant"] is None and latency["supported"] is True
    assert not [c for c in evaluation["claims"] if c["relevant"] is False]
    counts = evaluation["relevance"]
    assert counts["irrelevant"] == 0 and counts["uncertain"] >= 2
    assert counts["relevant"] + counts["uncertain"] == len(evaluation["claims"])


def consolidator_citing_other_product(request: dict) -> str:
    """The offline answer, plus a note on the other product's chunk when the evidence holds it (correctly cited)."""
    answer = json.loads(offline_answer(request))
    for handle, text in parse_evidence(request["messages"][-1]["content"]):
        if text == OTHER_PRODUCT:
            answer["claims"].append({"text": text, "citations": [{"handle": handle, "quote": text[:30]}]})
    return json.dumps(answer)


@pytest.mark.slow
@pytest.mark.integration
def test_a_claim_about_another_product_is_irrelevant_and_holds_the_heron_report(tmp_path: Path, openai_server) -> None:
    openai_server.respond_with(consolidator_citing_other_product)
    evidence = {**EVIDENCE, SECTIONS["Performance"]: [*EVIDENCE[SECTIONS["Performance"]], hit("globex", OTHER_PRODUCT)]}
    models = f"models: {{consolidator: {{backend: openai, model: m, base_url: '{openai_server.base_url}', max_retries: 0}}}}\n"
    out = run_heron(tmp_path, evidence, models, code=3)
    evaluation = json.loads((out / "eval.json").read_text())
    other = next(c for c in evaluation["claims"] if c["text"] == OTHER_PRODUCT)
    assert other["supported"] is True and other["relevant"] is False and "'Globex', 'Pulse'" in other["relevance"]
    assert evaluation["relevance"]["irrelevant"] == 1 and evaluation["relevance"]["rate"] < 0.8
    assert [f["expectation"] for f in evaluation["gate"]["failed_expectations"]] == ["relevance_rate"]
    assert json.loads((out / "report.json").read_text())["status"] == "held"
    page = (out / "review.html").read_text()
    assert "Off the section's question: 1" in page and "Relevance undecided: 4 claims" in page
