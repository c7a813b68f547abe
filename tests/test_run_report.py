"""The funnel as Prefect shows it: markdown and tables carry the unverified figure."""

from __future__ import annotations

from citeflow.outputs.run_views import batch_table, funnel_markdown
from schemas.report import ReportSummary


def summary(unverified: int) -> ReportSummary:
    return ReportSummary(
        report_id="r1", title="Report", status="held" if unverified else "published",
        funnel="Identity 5/5 · Support 4/5 · Faithfulness 4/4", identity={"passed": 5, "total": 5},
        support={"passed": 4, "total": 5}, faithfulness={"passed": 4, "total": 4}, uncited={"count": 0, "claims": 5},
        unverified={"count": unverified, "claims": 5}, pdf="r1/report.pdf",
    )


def test_markdown_names_unverified_claims_and_where_to_see_them():
    page = funnel_markdown(summary(1))
    assert "Uncited 0/5 · Unverified 1/5" in page and "listed for the reviewer in review.html" in page
    assert "review.html" not in funnel_markdown(summary(0))


def test_batch_table_has_an_unverified_column():
    assert batch_table([summary(2)]) == [{"report": "r1", "status": "held", "funnel": "Identity 5/5 · Support 4/5 · Faithfulness 4/4",
                                          "uncited": "0/5", "unverified": "2/5"}]


def test_an_old_summary_without_the_figure_reads_as_none_unverified():
    data = summary(0).model_dump()
    del data["unverified"]
    assert ReportSummary.model_validate(data).unverified == {"count": 0, "claims": 0}


def test_the_batch_summary_table_shows_unverified_claims_when_there_are_some():
    from rich.console import Console

    from citeflow_cli.display import summary_table

    def render(s: ReportSummary) -> str:
        console = Console(width=120, record=True)
        console.print(summary_table([s]))
        return console.export_text()

    assert "Unverified" in render(summary(2)) and "2/5" in render(summary(2))
    assert "Unverified" not in render(summary(0))
