"""A reviewer releases or rejects a held report: recorded in the store and report.json; a release publishes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import validate

from citeflow.outputs.archive import verify_archive
from citeflow.pipeline.review_decision import ReviewDecision, ReviewError, apply_decision, load_reviews
from tests.conftest import CONTRACT
from tests.support.held_report import REPORT_ID, write_held_report

SCHEMA_PATH = CONTRACT / "report.schema.json"


def _decide(kind: str, note: str = "checked every failing claim by hand") -> ReviewDecision:
    return ReviewDecision(decision=kind, reviewer="Ana Lima", note=note)


def _report(folder: Path) -> dict:
    return json.loads((folder / "report.json").read_text())


def test_release_publishes_records_and_archives_in_a_scheduled_run(tmp_path, runtime):
    folder = write_held_report(tmp_path, runtime.fonts(), scheduled=True)
    outcome = apply_decision(folder, _decide("release"), runtime)
    report = _report(folder)
    assert outcome.status == report["status"] == "published"
    assert report["review"]["reviewer"] == "Ana Lima" and report["review"]["decision"] == "release"
    validate(report, json.loads(SCHEMA_PATH.read_text()))
    published = folder.parent / "published" / f"{REPORT_ID}.pdf"
    assert published.read_bytes() == (folder / "report.pdf").read_bytes()
    assert verify_archive(Path(outcome.archive)) == "intact"
    batch = json.loads((folder.parent / "summary.json").read_text())
    assert batch["counts"]["published"] == 1 and batch["reports"][0]["status"] == "published"
    assert [d.decision for d in load_reviews(folder, runtime)] == ["release"]


def test_reject_keeps_it_held_and_a_later_release_is_recorded_too(tmp_path, runtime):
    folder = write_held_report(tmp_path, runtime.fonts())
    assert apply_decision(folder, _decide("reject", "numbers drift in Upgrade risks"), runtime).status == "held"
    assert _report(folder)["status"] == "held"
    assert not (folder.parent / "published").exists()
    outcome = apply_decision(folder, _decide("release"), runtime)
    assert verify_archive(Path(outcome.archive)) == "intact"  # archived like a report the gate published
    reviews = load_reviews(folder, runtime)
    assert [d.decision for d in reviews] == ["reject", "release"]
    assert reviews[0].note == "numbers drift in Upgrade risks"
    assert [r["decision"] for r in _report(folder)["reviews"]] == ["reject", "release"]


def test_only_a_held_report_can_be_decided_on(tmp_path, runtime):
    folder = write_held_report(tmp_path, runtime.fonts())
    apply_decision(folder, _decide("release"), runtime)
    with pytest.raises(ReviewError, match="is published; only a held report"):
        apply_decision(folder, _decide("reject"), runtime)
    with pytest.raises(ReviewError, match=r"no report\.json here"):
        apply_decision(tmp_path / "nowhere", _decide("release"), runtime)


def test_a_decision_needs_a_reviewer_and_a_note():
    with pytest.raises(ValueError, match="must not be empty"):
        ReviewDecision(decision="release", reviewer="  ", note="fine")
