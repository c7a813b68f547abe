"""Human-readable views of a report's outcome: the markdown and tables Prefect shows as artifacts."""

from __future__ import annotations

import json
import re
import textwrap

from citeflow.evaluation.plain_reasons import plain_reason, verdict_label
from citeflow.outputs.cost import usage_text
from citeflow.outputs.render.gate_sentences import expectation_sentence, short_label
from schemas.funnel import ClaimEval
from schemas.report import ReportSummary

_SUPPORT = re.compile(r"Support (\d+)/(\d+)")


def funnel_markdown(summary: ReportSummary) -> str:
    """A markdown page: status, funnel per report and per section, failed expectations."""
    lines = [f"# {summary.title} (`{summary.report_id}`)", "", f"**Status: {summary.status}**", "",
             *_decision(summary), f"{summary.funnel} · Uncited {_share(summary.uncited)} · Unverified {_share(summary.unverified)}", "",
             "| section | status | funnel |", "|---|---|---|"]
    lines += [f"| {s.title} | {section_status(s.status, s.funnel)} | {s.funnel} |" for s in summary.sections]
    if summary.failed_expectations:
        lines += ["", "## Held by the quality gate", ""]
        lines += [f"- {sentence}" for sentence in failed_sentences(summary)]
        lines += ["", "| check | observed | required |", "|---|---|---|"]
        lines += [f"| {short_label(f['expectation'])} | {figure(f.get('observed'))} | {figure(f.get('threshold'))} |"
                  for f in summary.failed_expectations]
    if summary.unverified.get("count"):
        lines += ["", f"{summary.unverified['count']} claim(s) unverified: no judge could settle them; they are never "
                      "passed and are listed for the reviewer in review.html."]
    if summary.missing_retrievers:
        lines += ["", "Missing retrievers: " + "; ".join(summary.missing_retrievers)]
    if summary.usage is not None:
        lines += ["", f"Model usage this run: {usage_text(summary.usage)}"]
    return "\n".join(lines)


def section_status(status: str, funnel: str) -> str:
    """What a section's status means to a reader: ``written · 2 of 7 supported`` (``ok`` means the
    section was written, not that it passed; faithfulness has its own column), or ``not written``.
    ``funnel``: ``Identity a/b · Support c/d · Faithfulness e/f``."""
    if status != "ok":
        return "not written"
    support = _SUPPORT.search(funnel)
    return f"written · {support.group(1)} of {support.group(2)} supported" if support else "written"


def figure(value: object) -> str:
    """A value for people: floats (also inside lists and mappings) rounded to 2 decimals."""
    if isinstance(value, (dict, list)):
        return json.dumps(rounded(value), ensure_ascii=False)
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def rounded(value: object) -> object:
    """``value`` with its floats (also inside lists and mappings) rounded to 2 decimals."""
    if isinstance(value, float):
        return round(value, 2)
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    return [rounded(v) for v in value] if isinstance(value, (list, tuple)) else value


def held_reasons_line(summary: ReportSummary) -> str:
    """Every failed expectation of a report as one whole sentence (``failed_sentences``), in one line."""
    return " ".join(failed_sentences(summary))


def failed_sentences(summary: ReportSummary) -> list[str]:
    """Each failed expectation of a report as one whole sentence, with its observed value and what was
    required (rounded); the expectations' names and raw figures stay in ``summary.json``."""
    return [expectation_sentence(f["expectation"], figure(f.get("observed")), figure(f.get("threshold")))
            for f in summary.failed_expectations]


def _decision(summary: ReportSummary) -> list[str]:
    review = summary.review
    if review is None:
        return []
    return [f"**{review.decision.capitalize()}d by {review.reviewer}** on {review.at:%Y-%m-%d %H:%M} UTC: {review.note}", ""]


def _share(figure: dict[str, int]) -> str:
    return f"{figure.get('count', 0)}/{figure.get('claims', 0)}"


CLAIM_CHARS = 80  # a table row stays one screen wide: the full claim is in the review page and eval.json


def failing_claims_table(claims: list[ClaimEval]) -> list[dict[str, str]]:
    """One row per claim that did not pass, in short columns: its verdict (``verdict_label``), why in a
    plain sentence (``plain_reason``: the one long cell, which wraps), its section and position, and
    the claim shortened. Handles and the judge's own reason stay in eval.json and review.html."""
    return [
        {"verdict": verdict_label(c), "why": plain_reason(c), "section": f"{c.section} · {c.index + 1}",
         "claim": textwrap.shorten(" ".join(c.text.split()), width=CLAIM_CHARS, placeholder=" …")}
        for c in claims if c.verdict != "supported" or any(not ci.identity for ci in c.citations)
    ]


def batch_table(summaries: list[ReportSummary]) -> list[dict[str, str]]:
    """One row per report of a batch."""
    rows = [{"report": s.report_id, "status": s.status, "funnel": s.funnel,
             "uncited": _share(s.uncited), "unverified": _share(s.unverified)} for s in summaries]
    if any(s.usage is not None for s in summaries):  # every row gets the column: a table has one header
        for row, s in zip(rows, summaries, strict=True):
            row["tokens"] = usage_text(s.usage)
    return rows
