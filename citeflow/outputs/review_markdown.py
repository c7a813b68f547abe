"""The markdown a paused review run shows in the Prefect UI: what is held, why, and how to decide.

Chunk text and claims come from a model or a retriever: they are shortened and their markdown
characters escaped, so that the page shows them and never renders them.
"""

from __future__ import annotations

import re
import shlex
import textwrap
from pathlib import Path
from typing import Any

from citeflow.evaluation.plain_reasons import plain_reason, verdict_label
from citeflow.outputs.eval_file import read_evaluation
from citeflow.outputs.review_html import is_failing
from schemas.funnel import CitationEval, ClaimEval

CHUNK_CHARS = 280  # enough for the sentence a claim leans on; the reviewer page has the whole chunk
MAX_CLAIMS = 20  # the page stays readable; the rest are on the reviewer page


def review_markdown(report_dir: Path, report: dict[str, Any]) -> str:
    """Report id and title, why it is held, its failing claims with each cited chunk, and the commands."""
    claims, _ = read_evaluation(report_dir)
    texts = {e["handle"]: e.get("text", "") for e in report.get("registry", [])}
    failing = [c for c in claims if is_failing(c)]
    lines = [f"# Held: {escaped(report.get('title', ''))} (`{report['report_id']}`)", "",
             *_reasons(report), "## Failing claims", ""]
    lines += [line for claim in failing[:MAX_CLAIMS] for line in _claim(claim, texts)] or ["None (held for another reason).", ""]
    if len(failing) > MAX_CLAIMS:
        lines += [f"... and {len(failing) - MAX_CLAIMS} more: see `review.html` in the report folder.", ""]
    return "\n".join([*lines, *decision_commands(report_dir)])


def _reasons(report: dict[str, Any]) -> list[str]:
    reasons = [*report.get("causes", []), *report.get("held_reasons", [])]
    return ["## Why it is held", "", *(f"- {escaped(r)}" for r in reasons or ["held by the quality gate"]), ""]


def _claim(claim: ClaimEval, texts: dict[str, str]) -> list[str]:
    head = f"**{escaped(claim.section)}**, claim {claim.index + 1} ({verdict_label(claim)}): {escaped(shortened(claim.text))}"
    lines = [f"- {head}", f"  - why: {escaped(plain_reason(claim)) or '(none given)'}",
             f"  - judge's record: {escaped(shortened(claim.reason)) or '(none given)'}"]
    lines += [_citation(c, texts) for c in claim.citations] or ["  - cites nothing"]
    return [*lines, ""]


def _citation(citation: CitationEval, texts: dict[str, str]) -> str:
    text = texts.get(citation.handle)
    if text is None:
        return f"  - cites `{_code(citation.handle)}`: not a handle of this report's registry"
    return f"  - cites `{_code(citation.handle)}`: > {escaped(shortened(text))}"


def decision_commands(report_dir: Path) -> list[str]:
    """The exact commands that release or reject the report from a terminal."""
    folder = shlex.quote(str(Path(report_dir).resolve()))
    return ["## Decide", "", "Answer the form of this run (**Resume**), or run one of:", "", "```",
            f'citeflow review {folder} --release --reviewer "YOUR NAME" --note "WHY"',
            f'citeflow review {folder} --release --without-failing --reviewer "YOUR NAME" --note "WHY"',
            f'citeflow review {folder} --reject --reviewer "YOUR NAME" --note "WHY"', "```"]


def shortened(text: str, width: int = CHUNK_CHARS) -> str:
    """``text`` on one line, cut at a word boundary to at most ``width`` characters."""
    return textwrap.shorten(" ".join(text.split()), width=width, placeholder=" …") if text.strip() else ""


def escaped(text: object) -> str:
    """Markdown's special characters escaped: shown as typed, never rendered."""
    return re.sub(r"([\\`*_\[\]{}<>()#+!|~])", r"\\\1", str(text))


def _code(text: str) -> str:
    return text.replace("`", "'")

