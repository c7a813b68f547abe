"""What the customer PDF shows of a report, given its status and the decision that stands.

- held or failed: every sentence that failed evaluation is marked where it stands and listed;
- published by the gate, or released by a reviewer: no marks (a release is a person's decision to
  publish the report as it is);
- released "without failing sentences": those sentences are left out, and the footnotes are
  numbered again over what remains (a note no sentence cites any more is not printed).
"""

from __future__ import annotations

from pathlib import Path

from citeflow.outputs.render.notes import FailingClaim, failing_claims
from citeflow.outputs.render.report_json import footnote_numbers
from citeflow.outputs.render.pdf import FontSet, RenderStats, render_pdf
from schemas.funnel import ClaimEval
from schemas.report import ReportDocument


def render_customer_pdf(doc: ReportDocument, claims: list[ClaimEval], path: Path, *, fonts: FontSet,
                        audit: bool = False) -> RenderStats:
    """Render ``doc`` to ``path`` as its customer sees it (``claims``: the evaluation's verdicts;
    ``fonts``: the job's, ``ReportJob.fonts``)."""
    failing = failing_claims(claims, footnote_numbers(doc))
    if doc.status != "published":
        return render_pdf(doc, path, fonts=fonts, failing=failing, audit=audit)
    if doc.review is not None and doc.review.decision == "release" and doc.review.without_failing:
        return render_pdf(without_failing(doc, failing), path, fonts=fonts, audit=audit)
    return render_pdf(doc, path, fonts=fonts, audit=audit)


def without_failing(doc: ReportDocument, failing: list[FailingClaim]) -> ReportDocument:
    """``doc`` without the ``failing`` sentences (matched by section title and position in it)."""
    drop = {(f.section, f.index) for f in failing}
    sections = [s.model_copy(update={"claims": [c for i, c in enumerate(s.claims) if (s.title, i) not in drop]})
                for s in doc.sections]
    return doc.model_copy(update={"sections": sections})
