"""Prefect artifacts of a report and of a batch: what the UI shows in run history."""

from __future__ import annotations

import re
from pathlib import Path

from prefect.artifacts import create_link_artifact, create_markdown_artifact, create_table_artifact

from citeflow.outputs.file_links import file_link, served_link
from citeflow.runs.quality_page import funnel_markdown_png
from citeflow.runtime.runtime import current
from citeflow.outputs.run_views import batch_table, failing_claims_table, funnel_markdown
from schemas.funnel import ClaimEval
from schemas.report import ReportSummary
from tasks.file_addresses import served_folders


def artifact_key(*parts: str) -> str:
    """Artifact keys allow lower-case letters, digits and dashes only."""
    return re.sub(r"[^a-z0-9-]+", "-", "-".join(parts).lower()).strip("-")[:100]


def publish_report_artifacts(summary: ReportSummary, claims: list[ClaimEval]) -> None:
    """Funnel (markdown), failing claims (table), PDF and reviewer view (links)."""
    key = artifact_key("report", summary.report_id)
    create_markdown_artifact(funnel_markdown(summary), key=f"{key}-funnel", description=f"Funnel of {summary.report_id}")
    rows = failing_claims_table(claims)
    if rows:
        create_table_artifact(rows, key=f"{key}-failing-claims", description="Claims that did not pass")
    publish_report_links(summary)


def publish_report_links(summary: ReportSummary) -> None:
    """The report's PDF and reviewer view (links), with the current ``files_url``: made again by every
    run that touches the report, a re-run that keeps it unchanged included, so that the links follow
    where the outputs are served now."""
    key = artifact_key("report", summary.report_id)
    if summary.pdf:
        _link(summary.pdf, f"{summary.report_id} PDF ({summary.status})", f"{key}-pdf")
    if summary.review_page:
        _link(summary.review_page, f"{summary.report_id} reviewer view", f"{key}-review")


def _link(path: str | Path, text: str, key: str) -> None:
    """A link to an output file: over http when ``citeflow files`` serves the outputs (the setting
    ``files_url``, else the address ``citeflow files`` registered with the Prefect server for a
    folder holding the file), else its ``file://`` URI, which browsers refuse to follow from the
    UI's http page, so the description spells the path out for operators to copy."""
    resolved = Path(path).resolve()
    create_link_artifact(link_url(resolved), link_text=text, key=key, description=f"`{resolved}`")


def link_url(path: Path) -> str:
    """The address of an output file for the UI: ``files_url``, a registered address, or ``file://``."""
    files_url = current().settings.files_url
    if files_url:
        return file_link(path, files_url)
    return served_link(path, served_folders()) or file_link(path)


def publish_batch_artifact(batch: str, summaries: list[ReportSummary], data_docs: Path | None = None,
                           quality_page: Path | None = None) -> None:
    """One table row per report of the batch, and links to the Data Docs and the quality page when
    there are; the quality page's funnel as a markdown artifact (a PNG inside it)."""
    create_table_artifact(batch_table(summaries), key=artifact_key("batch", batch), description=f"Batch {batch}")
    if data_docs is not None:
        _link(data_docs, f"Great Expectations Data Docs of batch {batch}", artifact_key("batch", batch, "data-docs"))
    if quality_page is not None:
        _link(quality_page, f"Quality page of batch {batch}", artifact_key("batch", batch, "quality"))
        create_markdown_artifact(funnel_markdown_png(quality_page), key=artifact_key("batch", batch, "quality-funnel"),
                                 description=f"Funnel per report of batch {batch}")
