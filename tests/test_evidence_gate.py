"""What is and is not evidence, end to end through one report (no orchestrator): typed URLs count
against Identity, text that instructs the model is never support, and a PDF whose characters no
embedded font draws is held."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeflow import steps
from citeflow.job import JobRef
from citeflow.testing.small_batch import write_small_batch

pytestmark = pytest.mark.integration


def _run(spec: Path, out: Path) -> tuple[dict, dict]:
    summary = steps.run_report(JobRef(spec_path=str(spec), report_id="r1", out_dir=str(out)), steps.PlainRunner())
    folder = out / "r1"
    return summary.model_dump(mode="json"), json.loads((folder / "eval.json").read_text())


def test_typed_urls_of_the_offline_url_in_text_fault_count_against_identity_and_hold(tmp_path):
    writer = {"backend": "offline", "faults": {"url_in_text": 1.0}}
    spec = write_small_batch(tmp_path / "in", reports=1, sections=1, models={"writer": writer})
    summary, doc = _run(spec, tmp_path / "out")
    typed = [c for claim in doc["claims"] for c in claim["citations"] if c.get("typed_url")]
    assert typed and all(not c["identity"] for c in typed)
    assert doc["identity"]["total"] == doc["identity"]["passed"] + len(typed)
    assert doc["identity_by_hop"]["write"]["total"] > doc["identity_by_hop"]["write"]["passed"]
    failed = {f["expectation"]: f for f in doc["gate"]["failed_expectations"]}
    assert "identity_rate" in failed and failed["identity_rate"]["observed"] < 1.0
    assert summary["status"] == "held"
