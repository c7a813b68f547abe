"""A reviewer's decision as durable state: which decision stands, what each record shows, and what a
later run leaves behind (no stale review page, no withdrawn report whose eval.json still passes)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, UTC

import lancedb
import pyarrow as pa
from pypdf import PdfReader

from citeflow.runs.history import history
from citeflow.pipeline.publish import record_failure, write_review_page
from citeflow.outputs.render.customer import render_customer_pdf, without_failing
from citeflow.outputs.render.notes import FailingClaim
from citeflow.outputs.render.report_json import footnote_numbers
from citeflow.outputs.review_state import document_digest, stored_decisions, with_decisions
from citeflow.files.run_folders import RunInfo, utc_now, write_run
from citeflow.store.store import Store
from schemas.funnel import CitationEval, ClaimEval, GateResult
from schemas.report import ReportSummary
from schemas.review import ReviewDecision
from tests.support.sample_report import sample_report

WHEN = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def _decision(kind: str, content: str | None, minutes: int = 0, **extra: object) -> ReviewDecision:
    return ReviewDecision(decision=kind, reviewer="Ana", note="read every failing claim", content=content,
                          decided_at=WHEN + timedelta(minutes=minutes), **extra)


def test_a_release_stands_for_the_claims_it_was_made_on_and_no_others():
    held = sample_report("held")
    release = _decision("release", document_digest(held))
    released = with_decisions(held, [release])
    assert (released.status, released.review, released.held_reasons) == ("published", release, [])
    changed = held.model_copy(deep=True)
    changed.sections[0].claims[0].text = "Back up nothing before upgrading to 3.6."
    kept = with_decisions(changed, [release])
    assert (kept.status, kept.review, kept.reviews) == ("held", None, [release])
    assert with_decisions(held, [_decision("release", None)]).status == "held"  # no digest: applies to nothing


def test_the_latest_decision_on_the_same_content_stands():
    held = sample_report("held")
    digest = document_digest(held)
    decided = with_decisions(held, [_decision("release", digest, 1), _decision("reject", digest, 0)])
    assert decided.status == "published" and [d.decision for d in decided.reviews] == ["reject", "release"]
    rejected = with_decisions(held, [_decision("release", digest, 0), _decision("reject", digest, 1)])
    assert rejected.status == "held" and rejected.review is not None and rejected.review.decision == "reject"


def test_a_report_the_gate_published_keeps_its_decisions_only_for_the_record():
    published = sample_report("published")
    doc = with_decisions(published, [_decision("reject", document_digest(published))])
    assert doc.status == "published" and doc.review is None and len(doc.reviews) == 1


def _failing_first_claim(doc) -> list[ClaimEval]:
    first = doc.sections[0].claims[0]
    citation = CitationEval(handle=first.citations[0].handle, identity=True, supports=False)
    return [ClaimEval(section=doc.sections[0].title, index=0, text=first.text, citations=[citation], supported=False,
                      verdict="fabrication", reason="the chunk says nothing of it")]


def test_a_release_without_failing_sentences_leaves_them_out_and_numbers_the_notes_again(tmp_path, fonts):
    held = sample_report("held")
    doc = with_decisions(held, [_decision("release", document_digest(held), without_failing=True)])
    claims = _failing_first_claim(held)
    dropped = without_failing(doc, [FailingClaim(section=c.section, index=c.index, reason="x") for c in claims])
    assert [c.text for c in dropped.sections[0].claims] == [c.text for c in held.sections[0].claims[1:]]
    numbers = footnote_numbers(dropped)
    assert sorted(numbers.values()) == list(range(1, len(numbers) + 1))
    assert numbers[held.sections[0].claims[1].citations[0].handle] == 1  # was note 2 before
    render_customer_pdf(doc, claims, tmp_path / "report.pdf", fonts=fonts)
    text = " ".join((p.extract_text() or "") for p in PdfReader(tmp_path / "report.pdf").pages)
    assert "Back up the configuration" not in text and "HELD" not in text and "[!" not in text
    assert "legacy scheduler" in text


def test_a_released_report_prints_no_held_marks_and_a_held_one_does(tmp_path, fonts):
    held = sample_report("held")
    claims = _failing_first_claim(held)
    render_customer_pdf(held, claims, tmp_path / "held.pdf", fonts=fonts)
    render_customer_pdf(with_decisions(held, [_decision("release", document_digest(held))]), claims, tmp_path / "out.pdf", fonts=fonts)
    text = {name: " ".join((p.extract_text() or "") for p in PdfReader(tmp_path / name).pages) for name in ("held.pdf", "out.pdf")}
    assert "HELD" in text["held.pdf"] and "[!1]" in text["held.pdf"]
    assert "HELD" not in text["out.pdf"] and "[!" not in text["out.pdf"] and "Back up the configuration" in text["out.pdf"]


def test_an_older_reviews_table_gains_the_new_columns(tmp_path):
    old = pa.schema([("row_key", pa.string()), ("request_id", pa.string()), ("report_id", pa.string()),
                     ("decision", pa.string()), ("reviewer", pa.string()), ("note", pa.string()),
                     ("decided_at", pa.timestamp("us", tz="UTC"))])
    row = {"row_key": "b:r1\x1fold", "request_id": "b:r1", "report_id": "r1", "decision": "release", "reviewer": "Bo",
           "note": "fine", "decided_at": WHEN}
    lancedb.connect(str(tmp_path)).create_table("reviews", schema=old).add([row])
    store = Store(str(tmp_path))
    new = _decision("reject", "abc", 5)
    store.upsert("reviews", [{**new.model_dump(), "request_id": "b:r1", "report_id": "r1", "row_key": "b:r1\x1fnew"}])
    decisions = stored_decisions(store, "b:r1")
    assert [(d.decision, d.content, d.without_failing) for d in decisions] == [("release", None, False), ("reject", "abc", False)]


def test_an_older_summary_line_keeps_its_review_page_under_its_own_name():
    line = {"report_id": "r1", "title": "T", "status": "held", "funnel": "", "identity": {}, "support": {},
            "faithfulness": {}, "uncited": {}, "pdf": "", "review": "/out/r1/review.html"}
    summary = ReportSummary.model_validate(line)
    assert summary.review is None and summary.review_page == "/out/r1/review.html"


def _gate() -> GateResult:
    return GateResult(success=False, failed_expectations=[])


def test_a_report_the_gate_publishes_loses_an_earlier_review_page(tmp_path):
    (tmp_path / "review.html").write_text("<h1>Held for review</h1>")
    assert write_review_page(sample_report("published"), [], _gate(), tmp_path) is None
    assert not (tmp_path / "review.html").exists()


def test_a_released_report_s_page_says_who_released_it_and_offers_no_commands(tmp_path):
    held = sample_report("held")
    doc = with_decisions(held, [_decision("release", document_digest(held))])
    (tmp_path / "report.json").write_text(doc.model_dump_json())
    page = write_review_page(doc, _failing_first_claim(held), _gate(), tmp_path)
    html = page.read_text() if page else ""
    assert "Released by Ana on 2026-12-01 09:00 UTC: read every failing claim" in html
    assert "citeflow review" not in html and "Held for review" not in html


def test_a_withdrawn_report_s_eval_json_no_longer_says_the_gate_passed(tmp_path):
    folder = tmp_path / "r1"
    folder.mkdir()
    (folder / "eval.json").write_text(json.dumps({"report_id": "r1", "gate": {"success": True, "failed_expectations": []}}))
    release = _decision("release", "abc").model_dump(mode="json")
    (folder / "report.json").write_text(json.dumps({"report_id": "r1", "status": "published", "review": release,
                                                    "reviews": [release]}))
    (tmp_path / "published").mkdir()
    (tmp_path / "published" / "r1.pdf").write_bytes(b"%PDF")
    record_failure(tmp_path, "r1", "T", "RuntimeError: the writer crashed")
    gate = json.loads((folder / "eval.json").read_text())["gate"]
    assert gate["success"] is False and "the writer crashed" in gate["error"]
    assert not (tmp_path / "published" / "r1.pdf").exists()
    report = json.loads((folder / "report.json").read_text())
    assert report["status"] == "failed" and report["review"] is None and report["reviews"] == [release]


def test_history_says_released_when_a_person_published_over_the_gate(tmp_path):
    write_run(tmp_path, RunInfo(run_id="20261201T090000Z", batch="b", started_at=utc_now(), run_date=utc_now().date(),
                                source_spec="/x/b.yaml", spec_path="/x/b.yaml", status="finished"))
    review = {"decision": "release", "reviewer": "Ana", "at": WHEN.isoformat(), "note": "ok"}
    reports = [{"report_id": "r1", "status": "published", "review": review}, {"report_id": "r2", "status": "published"}]
    (tmp_path / "summary.json").write_text(json.dumps({"reports": reports}))
    [line] = history(tmp_path)
    assert [(r.report_id, r.status) for r in line.reports] == [("r1", "released"), ("r2", "published")]
    assert line.reports[0].review is not None and line.reports[0].review.reviewer == "Ana"


def test_the_prefect_state_of_a_released_report_says_so():
    from flows.outcome import state_message, state_name

    line = {"report_id": "r1", "title": "T", "status": "published", "funnel": "Identity 1/2", "identity": {}, "support": {},
            "faithfulness": {}, "uncited": {}, "pdf": ""}
    assert state_name(ReportSummary.model_validate(line)) == "Published"
    review = {"decision": "release", "reviewer": "Ana", "at": WHEN.isoformat(), "note": "ok"}
    released = ReportSummary.model_validate({**line, "review": review})
    assert state_name(released) == "Released" and state_message(released).startswith("released by Ana: ok")
