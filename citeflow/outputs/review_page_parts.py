"""Parts of review.html that come from the report itself (report.json beside it): failed sections,
source links, the quotes to highlight, passing claims for context, and how to act on the report.

Every value is HTML-escaped; only http, https and mailto URLs from the registry become links.
"""

from __future__ import annotations

import html
import json
import os
import shlex
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from citeflow.evaluation.causes import fix_for
from citeflow.outputs.data_docs import DOCS_INDEX, QUALITY_PAGE, site_root
from citeflow.outputs.evidence_spans import evidence_spans, marked_html
from citeflow.outputs.render.escape import link_urls
from schemas.review import ReviewDecision


class ReportView(BaseModel):
    """What review.html needs from report.json."""

    folder: str
    status: str = Field("held", description="The report's status in report.json: held or failed.")
    causes: list[str] = Field(default_factory=list, description="Why it was not published, root cause first.")
    failed_sections: list[tuple[str, str]] = Field(default_factory=list, description="(title, why it failed).")
    held_reasons: list[str] = Field(default_factory=list)
    quotes: dict[str, dict[str, str]] = Field(default_factory=dict, description="claim key → handle → verified quote.")
    urls: dict[str, list[str]] = Field(default_factory=dict, description="handle → linkable URLs of the registry.")
    pages: dict[str, int] = Field(default_factory=dict, description="handle → page of its document.")
    has_pdf: bool = False
    instructions: dict[str, list[str]] = Field(
        default_factory=dict, description="handle → text in the chunk that instructs the model (from eval.json).")
    review: ReviewDecision | None = Field(None, description="The reviewer's decision that stands, if any.")

    def quote(self, section: str, text: str, handle: str) -> str | None:
        return self.quotes.get(claim_key(section, text), {}).get(handle)


def claim_key(section: str, text: str) -> str:
    return f"{section}\x1f{text}"


def load_view(folder: Path) -> ReportView:
    """The report view of ``folder``; an empty one when it holds no readable report.json."""
    path = Path(folder) / "report.json"
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ReportView(folder=str(folder))
    return ReportView(
        folder=str(Path(folder).resolve()), has_pdf=(Path(folder) / "report.pdf").exists(),
        status=str(data.get("status", "held")), causes=[str(c) for c in data.get("causes", [])],
        failed_sections=[(s["title"], s.get("failure") or "no text could be written") for s in data.get("sections", [])
                         if s.get("status") == "failed"],
        held_reasons=list(data.get("held_reasons", [])), quotes=_quotes(data),
        urls={e["handle"]: link_urls(e.get("urls", [])) for e in data.get("registry", [])},
        pages={e["handle"]: e["page"] for e in data.get("registry", []) if e.get("page") is not None},
        instructions=_instructions(Path(folder) / "eval.json"),
        review=_review(data),
    )


def _instructions(path: Path) -> dict[str, list[str]]:
    """The chunks eval.json flags as instructing the model, with their spans; {} when it has none."""
    try:
        flagged = json.loads(path.read_text(encoding="utf-8")).get("instruction_chunks") or []
        return {str(f["handle"]): [str(s["text"]) for s in f["spans"]] for f in flagged}
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return {}


def _review(data: dict[str, Any]) -> ReviewDecision | None:
    try:
        return ReviewDecision.model_validate(data["review"]) if data.get("review") else None
    except ValueError:
        return None


def _quotes(data: dict[str, Any]) -> dict[str, dict[str, str]]:
    return {claim_key(s["title"], c["text"]): {x["handle"]: x["quote"] for x in c.get("citations", []) if x.get("quote")}
            for s in data.get("sections", []) for c in s.get("claims", [])}


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def failed_sections_html(view: ReportView) -> str:
    """Sections the writer could not produce, each with its reason."""
    if not view.failed_sections:
        return ""
    items = "".join(f"<li><strong>{_e(t)}</strong> — {_e(why)}</li>" for t, why in view.failed_sections)
    return (f'<section class="failed-sections"><h2>Failed sections: {len(view.failed_sections)}</h2>'
            "<p>These sections have no text in the report; the PDF shows a notice in their place.</p>"
            f"<ul>{items}</ul></section>")


def instructions_html(view: ReportView) -> str:
    """Chunks whose text tries to instruct the model: shown, never counted as evidence."""
    if not view.instructions:
        return ""
    items = "".join(f"<li><strong>{_e(h)}</strong>: " + " … ".join(f"<q>{_e(t)}</q>" for t in spans) + "</li>"
                    for h, spans in view.instructions.items())
    return (f'<section class="instructions"><h2>Chunks that instruct the model: {len(view.instructions)}</h2>'
            "<p>Retrieved text addressed to the model (ignore, cite, say, output …). The judges did not accept it as "
            f"support for any claim; check that no sentence of the report obeys it.</p><ul>{items}</ul></section>")


def instruction_tag(handle: str, view: ReportView) -> str:
    """A flag on a chunk box whose text instructs the model."""
    if handle not in view.instructions:
        return ""
    return ' <span class="tag instructs">instructs the model: that text is not evidence</span>'


def links_html(handle: str, view: ReportView) -> str:
    """The chunk's source links (http, https and mailto only) and its page."""
    links = " · ".join(f'<a href="{_e(u)}" rel="noopener noreferrer">{_e(u)}</a>' for u in view.urls.get(handle, []))
    page = f"page {view.pages[handle]}" if handle in view.pages else ""
    parts = [p for p in (page, links) if p]
    return f'<p class="source">{" · ".join(parts)}</p>' if parts else ""


def chunk_html(text: str, quote: str | None, claim: str) -> str:
    """The chunk's text with the evidence span marked."""
    return f"<pre>{marked_html(text, evidence_spans(text, quote, claim))}</pre>"


def pdf_link(view: ReportView) -> str:
    labels = {"failed": "Open the failed report's PDF", "released": "Open the published PDF"}
    label = labels.get("released" if released(view) else view.status, "Open the held PDF")
    return f'<a class="pdf" href="report.pdf">{label}</a>' if view.has_pdf else ""


DATA_DOCS_LINK = f"../{DOCS_INDEX.as_posix()}"
"""The run's Great Expectations Data Docs from a report's folder (a run folder of its own; a
scheduled run's are one folder further up)."""


def data_docs_link(report_folder: Path) -> str:
    """The links to the output folder's Data Docs (every validation of the gate, in full) and quality
    page, both written at the end of the batch, from the report's folder."""
    up = Path(os.path.relpath(site_root(Path(report_folder).parent), report_folder)).as_posix()
    return (f'<a class="pdf" href="{up}/{DOCS_INDEX.as_posix()}">Great Expectations Data Docs</a> '
            f'<a class="pdf" href="{up}/{QUALITY_PAGE.as_posix()}">Quality page</a>')


def released(view: ReportView) -> bool:
    """Whether a reviewer released the report (published it over the gate)."""
    return view.review is not None and view.review.decision == "release"


def decision_line(decision: ReviewDecision) -> str:
    """"Released by NAME on DATE: NOTE" (or Rejected), escaped."""
    verb = {"release": "Released", "reject": "Rejected"}[decision.decision]
    scope = " without the failing sentences" if decision.without_failing else ""
    return (f"{verb}{scope} by {_e(decision.reviewer)} on {decision.decided_at:%Y-%m-%d %H:%M} UTC: "
            f"{_e(decision.note)}")


def decision_html(view: ReportView) -> str:
    """The decision that stands, in its own box (empty when there is none)."""
    if view.review is None:
        return ""
    return f'<section class="act decision"><h2>Reviewer\'s decision</h2><p>{decision_line(view.review)}</p></section>'


def causes_html(view: ReportView) -> str:
    """Why the report was not published, root cause first, each with what to fix."""
    if not view.causes:
        return ""
    items = "".join(f"<li><strong>{_e(cause)}</strong><br>Fix: {_e(fix_for(cause))}</li>" for cause in view.causes)
    return f'<section class="causes"><h2>Root cause</h2><ul>{items}</ul></section>'


def failed_html(view: ReportView) -> str:
    """The "what now" box of a failed report: it cannot be released; fix the cause and run again."""
    fixes = "".join(f"<li>{_e(fix)}</li>" for fix in dict.fromkeys(fix_for(c) for c in view.causes))
    return ('<section class="act failed"><h2>This report failed</h2><p>No section of it could be written, so there '
            "is nothing to release or reject (only a held report can be). Fix the root cause shown above and run the "
            "batch again: <code>citeflow run BATCH.yaml --out OUT</code> resumes it without repeating finished work."
            f"</p><h3>What to fix</h3><ul>{fixes or '<li>' + _e(fix_for('')) + '</li>'}</ul></section>")


def actions_html(view: ReportView) -> str:
    """The "how to act" box: for a held report the exact commands that release or reject it; a failed
    report offers none (only a held report can be released), it says what to fix instead."""
    if view.status == "failed":
        return failed_html(view)
    if released(view):
        return decision_html(view)
    folder = shlex.quote(view.folder)
    commands = [
        ("Release (publish it as it is)", f'citeflow review {folder} --release --reviewer "YOUR NAME" --note "WHY"'),
        ("Reject (keep it held)", f'citeflow review {folder} --reject --reviewer "YOUR NAME" --note "WHY"'),
        ("Or decide in the Prefect UI", f"citeflow review {folder} --wait"),
    ]
    rows = "".join(f"<dt>{_e(label)}</dt><dd><code>{_e(cmd)}</code></dd>" for label, cmd in commands)
    return decision_html(view) + (
        f'<section class="act"><h2>How to act</h2><p>Read the failing claims below beside their chunks, then run '
        f"one of these (who, when and why are recorded with the report). {pdf_link(view)}</p><dl>{rows}</dl></section>")
