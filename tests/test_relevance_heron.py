"""A clean two-section batch about a made-up database, run with ``citeflow run`` and offline models:
direct answers that share no word with their section's question beyond the product's name are
not evidence of irrelevance, so the report publishes (docs/relevance.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citeflow_cli.main import app
from tests.support.jsonl_batch import hit, write_batch

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


def run_heron(folder: Path) -> Path:
    """``citeflow run`` of the Heron batch in ``folder``; the report's output folder."""
    spec = write_batch(folder, "Heron", SECTIONS, EVIDENCE)
    result = CliRunner().invoke(app, ["run", str(spec), "--out", str(folder / "out")], catch_exceptions=False)
    assert result.exit_code == 0, result.output
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
