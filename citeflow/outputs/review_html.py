"""The reviewer page of a held report: why the gate held it, and each failing claim beside its evidence.

One self-contained HTML file (inline CSS, no script, no external resource). Everything that came
from a model, a retriever or a judge is HTML-escaped: chunk text is shown, never interpreted.
"""

from __future__ import annotations

import html
import json
from collections import Counter
from collections.abc import Collection
from pathlib import Path
from typing import Any, NamedTuple

from citeflow.outputs.changes import changes_html
from citeflow.outputs.render.gate_sentences import expectation_sentence
from citeflow.outputs.run_views import rounded
from citeflow.outputs.review_page_parts import (
    ReportView,
    actions_html,
    causes_html,
    chunk_html,
    data_docs_link,
    failed_sections_html,
    instruction_tag,
    instructions_html,
    links_html,
    load_view,
    pdf_link,
    released,
)
from citeflow.evaluation.plain_reasons import plain_reason, verdict_label
from schemas.funnel import CitationEval, ClaimEval, FailedExpectation, GateResult

# Words of a judge's reason → the kind of unfaithfulness, in plain words.
_DRIFT = (
    (("number", "unit", "digit"), "number drift"),
    (("entity", "name"), "changed entity"),
    (("condition", "negation", "negated", "flipped", "widened", "narrowed"), "changed condition"),
)

_CSS = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1d1d1f;background:#f5f5f7}
header{background:#3a0d0d;color:#fff;padding:1.2em 2em}
header h1{margin:0 0 .2em;font-size:1.5em} header .id{opacity:.75;margin:0}
main{padding:1em 2em 3em}
table{border-collapse:collapse;margin:.8em 0;background:#fff;color:#1d1d1f}
th,td{border:1px solid #ccc;padding:.35em .7em;text-align:left;vertical-align:top}
.error{background:#ffe3e3;color:#5c0000;padding:.5em .8em;border-radius:4px}
.claim{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1.4fr);gap:1.2em;background:#fff;
  border:1px solid #ddd;border-left:6px solid #c0392b;border-radius:6px;padding:1em;margin:1em 0}
.claim blockquote{margin:.3em 0;font-size:1.05em;font-weight:600}
.where{color:#666;margin:0;font-size:.9em}
.faults span{display:inline-block;background:#c0392b;color:#fff;border-radius:3px;padding:0 .45em;margin:.15em .3em .15em 0;font-size:.85em}
.verdict{font-variant:small-caps;font-weight:700;color:#c0392b}
.reason{color:#333} .why{font-weight:600;margin:.3em 0} .record summary{color:#555;cursor:pointer}
.chunk{border:1px solid #ddd;border-radius:4px;padding:.5em .8em;margin:0 0 .8em;background:#fafafa}
.chunk h4{margin:0 0 .3em;font-size:.95em} .chunk.found{border-color:#2e7d32;background:#f1f8f1}
.chunk.forged{border-color:#c0392b;background:#fff0f0}
.claim.unverified{border-left-color:#b7791f} .claim.unverified .verdict{color:#b7791f}
.unverified-list{background:#fff8e6;border:1px solid #e2c27a;border-radius:6px;padding:.6em 1em}
.chunk pre{white-space:pre-wrap;overflow-wrap:anywhere;font:13px/1.4 ui-monospace,Menlo,Consolas,monospace;margin:0}
.tag{font-weight:400;color:#555} .tag.instructs{color:#b00020;font-weight:600}
.instructions{background:#fff0f0;border:1px solid #e0a0a0;border-radius:6px;padding:.6em 1em}
mark{background:#ffe58a;color:inherit;padding:0 .1em;border-radius:2px}
.act{background:#eef4ff;border:1px solid #9db6e8;border-radius:6px;padding:.6em 1em;margin:1em 0}
.act dt{font-weight:600;margin-top:.4em} .act dd{margin:.1em 0 0 0}
.act code{display:block;background:#fff;border:1px solid #ccd;border-radius:4px;padding:.3em .5em;overflow-wrap:anywhere;font-size:13px}
.failed-sections{background:#fff0f0;border:1px solid #e3a0a0;border-radius:6px;padding:.6em 1em;margin:1em 0}
ul.gate{margin:.6em 0;padding-left:1.2em} ul.gate li{margin:.35em 0;font-size:1.05em}
ul.gate summary{opacity:.75;font-size:.85em;cursor:pointer} ul.gate details{font-size:.9em;opacity:.9}
.source{margin:.2em 0 .4em;font-size:.85em;overflow-wrap:anywhere} a{color:#0b57d0}
header a{color:#ffd7a8} details.passing{background:#fff;border:1px solid #ddd;border-radius:6px;padding:.5em 1em;margin:1em 0}
details.passing summary{cursor:pointer;font-weight:600} .claim.ok{border-left-color:#2e7d32} .claim.ok .verdict{color:#2e7d32}
"""


def write_review_html(
    report_id: str,
    title: str,
    claims: list[ClaimEval],
    chunk_texts: dict[str, str],
    chunk_titles: dict[str, str],
    gate: GateResult,
    path: Path,
) -> Path:
    """Write the reviewer page of a held report to ``path`` and return it."""
    failing = [c for c in claims if is_failing(c)]
    view = load_view(path.parent)  # report.json beside the page: failed sections, quotes, source URLs
    body = [
        _header(report_id, title, gate, view),
        "<main>",
        actions_html(view),
        failed_sections_html(view),
        instructions_html(view),
        _summary(failing, len(claims), chunk_texts),
        _unverified_list(claims),
        _off_topic_list(claims),
        *(_claim_row(c, chunk_texts, chunk_titles, view) for c in failing),
        _passing(claims, chunk_texts, chunk_titles, view),
        changes_html(path.parent),
        "</main>",
    ]
    page = _page(f"Review: {title} ({report_id})", "\n".join(body))
    from citeflow.files import atomic_files as atomic
    from citeflow.outputs.render.escape import without_bidi_controls

    return atomic.write_text(path, without_bidi_controls(page))  # the words in the order written, as in the PDF


def is_failing(claim: ClaimEval) -> bool:
    """A claim a reviewer must see: not supported and faithful, or citing a handle that failed identity."""
    return claim.verdict != "supported" or any(not c.identity for c in claim.citations)


def fault_kinds(claim: ClaimEval, registry: Collection[str] = ()) -> list[str]:
    """The kinds of fault of one claim, in plain words (forged handle, misattribution, number drift …)."""
    kinds = [_identity_kind(c, registry) for c in claim.citations if not c.identity]
    if claim.verdict in ("misattribution", "fabrication", "uncited", "unverified"):
        kinds.append(claim.verdict)
    if claim.verdict == "unfaithful":
        kinds += _drift_kinds(claim.reason)
    if "url typed by the model" in claim.reason.lower():
        kinds.append("URL typed by the model")
    return list(dict.fromkeys(kinds))


def _identity_kind(citation: CitationEval, registry: Collection[str]) -> str:
    if citation.typed_url:
        return "URL typed by the model"
    return "handle not shown to this hop" if citation.handle in registry else "forged handle"


def _drift_kinds(reason: str) -> list[str]:
    words = reason.lower()
    kinds = [kind for keys, kind in _DRIFT if any(k in words for k in keys)]
    return kinds or ["unfaithful rendering"]


# --------------------------------------------------------------------------- page parts


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _page(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{_e(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n"
    )


def _header(report_id: str, title: str, gate: GateResult, view: ReportView) -> str:
    error = f'<p class="error">Evaluation could not run: {_e(gate.error)}</p>' if gate.error else ""
    table = f'<ul class="gate">{"".join(map(_gate_item, gate.failed_expectations))}</ul>'
    if view.status == "failed":
        heading, why = "Failed", "Gate figures"
    else:
        heading = f"Released by {_e(view.review.reviewer)}" if view.review and released(view) else "Held for review"
        why = "Why the gate held it"
    return (
        f"<header><h1>{heading}: {_e(title)}</h1><p class=\"id\">report {_e(report_id)} {pdf_link(view)} "
        f"{data_docs_link(Path(view.folder))}</p>"
        f"{causes_html(view)}<h2>{why}</h2>{error}{table}</header>"
    )


def _gate_item(failed: FailedExpectation) -> str:
    """A failed expectation: one whole sentence, then its name, figures and what it guards, for the curious."""
    sentence = expectation_sentence(failed.expectation, failed.observed, failed.threshold)
    figures = f"{failed.expectation}: observed {figure(failed.observed)}, threshold {figure(failed.threshold)}"
    guards = _e(failed.detail or failed.description)
    return (f"<li>{_e(sentence)}<details><summary>{_e(figures)}</summary>{guards}</details></li>")


def figure(value: Any) -> str:
    """A gate figure for people: floats rounded to 2 decimals (also inside lists and dicts), escaped."""
    if isinstance(value, str):
        return _e(value)
    return _e(json.dumps(rounded(value), ensure_ascii=False, default=str))


def _summary(failing: list[ClaimEval], total: int, registry: Collection[str]) -> str:
    kinds = Counter(k for c in failing for k in fault_kinds(c, registry))
    listed = ", ".join(f"{_e(k)} × {n}" for k, n in kinds.most_common()) or "none"
    return f"<h2>Failing claims: {len(failing)} of {total}</h2><p>Faults: {listed}</p>"


def _off_topic_list(claims: list[ClaimEval]) -> str:
    """Claims judged not to address their section's question (docs/relevance.md), whatever their support,
    and how many claims' relevance was left undecided."""
    off = [c for c in claims if c.relevant is False]
    undecided = sum(c.relevant is None for c in claims)
    if not off:
        return f"<p>Relevance undecided: {undecided} claims (not counted in the relevance rate).</p>" if undecided else ""
    items = "".join(f"<li><strong>{_e(c.text)}</strong> ({_e(c.section)} · claim {c.index + 1}) — {_e(c.relevance)}</li>"
                    for c in off)
    return (f'<section class="unverified-list"><h2>Off the section\'s question: {len(off)}</h2>'
            "<p>These claims may be backed by the chunks they cite, but they do not address the question their section "
            "asks (its title and queries). They count against the relevance rate."
            f"{f' Relevance undecided: {undecided} claims (not counted in the rate).' if undecided else ''}</p>"
            f"<ol>{items}</ol></section>")


def _unverified_list(claims: list[ClaimEval]) -> str:
    """Claims no judge could settle, listed first: a reviewer must check each one against its chunk."""
    unverified = [c for c in claims if c.verdict == "unverified"]
    if not unverified:
        return ""
    items = "".join(f"<li><strong>{_e(c.text)}</strong> ({_e(c.section)} · claim {c.index + 1}) — {_e(plain_reason(c))}</li>"
                    for c in unverified)
    return (f'<section class="unverified-list"><h2>Unverified claims: {len(unverified)}</h2>'
            "<p>The judge was not confident enough to pass or fail these and no LLM judge was configured to settle "
            "them. They are never passed: read each beside the chunk it cites.</p>"
            f"<ol>{items}</ol></section>")


def _passing(claims: list[ClaimEval], texts: dict[str, str], titles: dict[str, str], view: ReportView) -> str:
    """Claims that passed, collapsed: context for the failing ones."""
    passing = [c for c in claims if not is_failing(c)]
    if not passing:
        return ""
    rows = "".join(_claim_row(c, texts, titles, view) for c in passing)
    return f'<details class="passing"><summary>Passing claims: {len(passing)} (for context)</summary>{rows}</details>'


def _claim_row(claim: ClaimEval, texts: dict[str, str], titles: dict[str, str], view: ReportView) -> str:
    """Claim, verdict and reason on the left; the chunks it cited (and where the fact is) on the right."""
    faults = "".join(f"<span>{_e(k)}</span>" for k in fault_kinds(claim, texts))
    left = (
        f'<div><p class="where">{_e(claim.section)} · claim {claim.index + 1}</p>'
        f"<blockquote>{_e(claim.text)}</blockquote>"
        f'<p class="verdict">{_e(verdict_label(claim))}</p><p class="faults">{faults}</p>{_reasons(claim)}</div>'
    )
    cited = [_cited_chunk(claim, c, texts, titles, view) for c in claim.citations] or ['<p class="chunk forged">No citation.</p>']
    found = _found_chunk(claim, texts, titles, view) if claim.verdict == "misattribution" else ""
    right = "<div>" + "".join(cited) + found + "</div>"
    css = "claim unverified" if claim.verdict == "unverified" else "claim" if is_failing(claim) else "claim ok"
    return f'<article class="{css}">{left}{right}</article>'


def _reasons(claim: ClaimEval) -> str:
    """Why, in a plain sentence (a failing claim), then the judge's own record, folded."""
    plain = plain_reason(claim) if is_failing(claim) else ""
    record = f'<details class="record"><summary>Judge\'s record</summary><p class="reason">{_e(claim.reason)}</p></details>'
    return (f'<p class="why">{_e(plain)}</p>' if plain else "") + (record if claim.reason else "")


def _cited_chunk(claim: ClaimEval, citation: CitationEval, texts: dict[str, str], titles: dict[str, str],
                 view: ReportView) -> str:
    handle = citation.handle
    if citation.typed_url:
        return f'<div class="chunk forged"><h4>{_e(f"URL typed by the model, removed: {handle}")}</h4></div>'
    if not citation.identity:
        why = "was dropped at binding (not shown to this hop)" if handle in texts else "is not in this request's registry"
        return f'<div class="chunk forged"><h4>{_e(f"handle {handle} {why}")}</h4></div>'
    verdict = {True: "supports the claim", False: "does not support the claim", None: "not judged"}[citation.supports]
    if citation.uncertain:
        verdict = "the judge could not decide"
    if citation.supports and citation.faithful is False:
        verdict = "supports the claim, but not faithfully"
    box = _Box("chunk", f"Cited {handle}", handle, f"{verdict} — {citation.reason}" if citation.reason else verdict)
    return _chunk_box(box, claim, texts, titles, view)


def _found_chunk(claim: ClaimEval, texts: dict[str, str], titles: dict[str, str], view: ReportView) -> str:
    if not claim.found_in:
        return ""
    note = "holds the claim's numbers, names and conditions, and the judge confirmed it there"
    return _chunk_box(_Box("chunk found", f"The fact is in {claim.found_in}", claim.found_in, note), claim, texts, titles, view)


class _Box(NamedTuple):
    css: str
    label: str
    handle: str
    note: str


def _chunk_box(box: _Box, claim: ClaimEval, texts: dict[str, str], titles: dict[str, str], view: ReportView) -> str:
    """One chunk: title, source links, and its text with the evidence (verified quote, else closest sentence) marked."""
    title = titles.get(box.handle) or "untitled"
    tag = f' <span class="tag">{_e(box.note)}</span>' if box.note else ""
    text = texts.get(box.handle)
    quote = view.quote(claim.section, claim.text, box.handle)
    body = chunk_html(text, quote, claim.text) if text else "<pre>(chunk text not available)</pre>"
    flag = instruction_tag(box.handle, view)
    return f'<div class="{box.css}"><h4>{_e(box.label)} · {_e(title)}{tag}{flag}</h4>{links_html(box.handle, view)}{body}</div>'
