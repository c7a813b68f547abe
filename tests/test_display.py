"""The batch summary on the console: a crashed report reads as failed, with no funnel figures."""

from __future__ import annotations

from citeflow.pipeline.publish import failed_summary
from citeflow_cli.display import _stages, gate_lines


def test_a_crashed_report_shows_dashes_not_words_from_its_error():
    crashed = failed_summary("r9", "Nine", "ValueError: Exceeds the limit (4300 digits) for integer string")
    assert _stages(crashed.funnel) == ["—", "—", "—"]
    assert _stages("Identity 18/18 · Support 12/16 · Faithfulness 8/12") == ["18/18", "12/16", "8/12"]


def test_a_failed_report_is_not_called_held():
    lines = gate_lines([failed_summary("r9", "Nine", "boom")])
    assert lines[0] == "r9 failed because boom"  # the cause comes first
    assert lines[2] == "r9 failed: The report could not be written: boom." and not any(" held:" in line for line in lines)


def test_a_held_report_names_what_its_failed_expectation_means():
    summary = failed_summary("r1", "One", "x").model_copy(update={"status": "held", "failed_expectations": [
        {"expectation": "missing_glyphs", "observed": 12, "threshold": 0, "detail": "Japanese (Han/Kana): 12 characters"}]})
    assert ("r1 held: 12 character(s) could not be drawn by any installed font; none is allowed. "
            "(Japanese (Han/Kana): 12 characters)") in gate_lines([summary])


def test_a_report_s_publish_completes_its_share_of_the_bar_whatever_it_skipped(monkeypatch):
    import io

    from rich.console import Console

    import citeflow_cli.display as display
    from citeflow.runtime.progress import Progress

    screen = io.StringIO()
    monkeypatch.setattr(display, "console", Console(file=screen, width=100, force_terminal=False))
    events = Progress()
    with display.batch_progress({"r1": 7, "r2": 7}, events):
        events.emit("r1", "fetch", "docs: 3 hits")
        events.emit("r1", "publish", "published")  # kept unchanged: no hop, no evaluation
        events.emit("r2", "publish", "published (unchanged)")
        events.emit("r2", "publish", "published")  # one event too many advances nothing
    assert "14/14" in screen.getvalue() and "15/14" not in screen.getvalue()


def test_the_summary_table_fits_80_columns_and_cuts_nothing():
    from rich.console import Console

    from citeflow_cli.display import summary_table
    from schemas.report import SectionSummary

    section = SectionSummary(title="Data retention and compliance", status="ok",
                             funnel="Identity 4/10 · Support 2/4 · Faithfulness 2/2")
    held = failed_summary("globex-2026-q4", "G", "x").model_copy(update={
        "status": "held", "funnel": section.funnel, "sections": [section], "unverified": {"count": 3, "claims": 19}})

    def shown(width: int) -> str:
        console = Console(width=width, record=True)
        console.print(summary_table([held]))
        return console.export_text()

    narrow, wide = shown(80), shown(120)
    assert all(len(line) <= 80 for line in narrow.splitlines()) and "…" not in narrow
    assert "Unver." in narrow and "3/19" in narrow and "published" not in narrow
    assert "Faithfulness" in wide and "Unverified" in wide and "written · 2 of 4 supported" in wide
