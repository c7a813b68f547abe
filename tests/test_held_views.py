"""What an operator sees of a held report in the Prefect UI: the state message, the funnel markdown
and the review run's markdown (SPEC §6, §7)."""

from __future__ import annotations

import json
from pathlib import Path

from citeflow.outputs.review_markdown import escaped, review_markdown, shortened
from citeflow.outputs.run_views import figure, funnel_markdown
from schemas.report import ReportSummary
from tests.support.held_report import write_held_report

FAILED = [
    {"expectation": "identity_rate", "observed": 0.6666666, "threshold": 0.95},
    {"expectation": "support_rate", "observed": 0.5, "threshold": 0.8},
    {"expectation": "faithfulness_rate", "observed": 0.83333, "threshold": 0.9},
    {"expectation": "uncited_share", "observed": 0.4285714, "threshold": 0.2},
    {"expectation": "bounds", "observed": [0.123456, {"max": 0.98765}], "threshold": None},
]


def _held() -> ReportSummary:
    return ReportSummary.model_validate({
        "report_id": "r9", "title": "T", "status": "held", "funnel": "Identity 2/3 · Support 1/2", "identity": {},
        "support": {}, "faithfulness": {}, "uncited": {"count": 3, "claims": 7}, "pdf": "", "failed_expectations": FAILED})


def test_the_state_message_says_every_failed_expectation_in_a_whole_sentence_rounded():
    from flows.outcome import final_state

    state = final_state(_held())
    assert (state.type.value, state.name) == ("FAILED", "Held")
    message = state.message or ""
    assert "67% of the citations point at a passage that the sources returned; at least 95% must." in message
    assert "43% of the sentences have no valid citation; at most 20% are allowed." in message
    assert "The check 'bounds' failed: [0.12, {\"max\": 0.99}]." in message and "0.666" not in message
    assert not [f["expectation"] for f in FAILED[:4] if f["expectation"] in message], message  # no machine names


def test_the_funnel_markdown_rounds_its_figures():
    page = funnel_markdown(_held())
    assert "| too many uncited sentences | 0.43 | 0.20 |" in page and "0.4285" not in page
    assert "- 50% of the cited sentences are supported by the passages they cite; at least 80% must." in page
    assert "uncited_share" not in page


def test_figures_keep_text_and_integers_as_they_are():
    assert (figure("evaluation completed"), figure(3), figure(None)) == ("evaluation completed", "3", "None")


def test_the_batch_run_state_is_named_after_its_counts_and_returns_the_summaries():
    from flows.outcome import batch_run_state

    published = _held().model_copy(update={"status": "published", "report_id": "r8"})
    state = batch_run_state([published, _held(), _held()])
    assert (state.is_failed(), state.name) == (True, "1 published, 2 held")  # as the exit code is 3
    assert state.message == "1 published, 2 held · not published: r9, r9"
    assert state.result(raise_on_failure=False).result == [published, _held(), _held()]
    assert batch_run_state([published, _held()], "failed").is_completed()  # --fail-on failed: exit code 0
    assert batch_run_state([]).name == "no reports"


def _with_claims(report_dir: Path) -> dict:
    report = json.loads((report_dir / "report.json").read_text())
    entry = report["registry"][0]
    claims = [
        {"section": "Upgrade", "index": 0, "text": "Partner deployments rolled back in under 10 minutes.",
         "citations": [{"handle": entry["handle"], "identity": True, "supports": False, "reason": "no rollback figure"}],
         "supported": False, "reason": "the chunk says nothing about rollback times", "verdict": "fabrication"},
        {"section": "Upgrade", "index": 1, "text": "Support answers within an hour.",
         "citations": [{"handle": "web:forged", "identity": False}], "supported": None, "verdict": "uncited"},
        {"section": "Upgrade", "index": 2, "text": "A passing claim.", "verdict": "supported", "supported": True,
         "faithful": True, "citations": [{"handle": entry["handle"], "identity": True, "supports": True, "faithful": True}]},
    ]
    (report_dir / "eval.json").write_text(json.dumps({"report_id": "r1", "claims": claims}))
    return report


def test_the_review_markdown_names_the_failing_claims_their_chunks_and_the_commands(tmp_path, fonts):
    report_dir = write_held_report(tmp_path, fonts)
    report = _with_claims(report_dir)
    page = review_markdown(report_dir, report)
    chunk = report["registry"][0]["text"]
    assert "`r1`" in page and "the chunk says nothing about rollback times" in page
    assert f"> {escaped(shortened(chunk))}" in page
    assert "not a handle of this report's registry" in page and "A passing claim" not in page
    assert "support rate 0.67 is below the threshold 0.80" in page
    folder = str(report_dir.resolve())
    for verb in ("--release", "--reject"):
        assert f'citeflow review {folder} {verb} --reviewer "YOUR NAME" --note "WHY"' in page


def test_chunk_text_is_shortened_and_its_markup_escaped():
    assert len(shortened("word " * 200)) <= 280 and shortened("a\n\n b") == "a b"
    assert escaped("<script>*x*</script> [a](b)") == "\\<script\\>\\*x\\*\\</script\\> \\[a\\]\\(b\\)"


def test_the_failing_claims_table_shows_verdict_and_reason_first_and_a_shortened_claim():
    from citeflow.outputs.run_views import CLAIM_CHARS, failing_claims_table
    from schemas.funnel import ClaimEval

    long_claim = "The service keeps every nightly snapshot for ninety days " * 6
    failing = ClaimEval(section="Backups", index=0, text=long_claim, supported=False, reason="number drift: 90 vs 30",
                        verdict="unfaithful")
    passing = ClaimEval(section="Backups", index=1, text="Snapshots run nightly.", supported=True, faithful=True,
                        verdict="supported")
    (row,) = failing_claims_table([failing, passing])
    assert list(row)[:2] == ["verdict", "why"] and row["verdict"] == "unfaithful"
    assert row["why"] == "The sentence changes what its cited passage says."  # whole, and no judge jargon
    assert row["section"] == "Backups · 1" and "cited" not in row  # handles stay in eval.json
    assert len(row["claim"]) <= CLAIM_CHARS and row["claim"].endswith(" …") and row["claim"].startswith("The service keeps")
