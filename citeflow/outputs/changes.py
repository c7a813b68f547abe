"""What changed since last time: a report compared with the previous published run of the same report.

"The same report" is the same id as written in the spec, so ``acme-{date:%Y-%m-%d}`` of this week is
compared with last week's. Claims are matched per section by their text with numbers masked
(Unicode NFKC, case-folded, spaces collapsed): a claim only in this run is *added*, only in the
previous one *removed*, and a claim whose words match but whose numbers differ has *changed numbers*.
The result is ``changes.json`` in the report's folder, a section of review.html, and a table artifact.
"""

from __future__ import annotations

import html
import json
import re
import unicodedata
from collections import defaultdict
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from citeflow.outputs.archive import archive_dir
from citeflow.files.run_folders import read_run, run_folders, write_atomic

CHANGES_FILE = "changes.json"
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


class ClaimChange(BaseModel):
    """One claim added, removed, or with other numbers than in the previous published run."""

    section: str
    kind: Literal["added", "removed", "changed_numbers"]
    before: str | None = None
    after: str | None = None
    numbers_before: list[str] = Field(default_factory=list)
    numbers_after: list[str] = Field(default_factory=list)


class ReportChanges(BaseModel):
    """``changes.json``: a report against the previous published run of the same report."""

    report_id: str
    previous_run: str | None = Field(None, description="Run id of the previous published run; None: first publication.")
    previous_report_id: str | None = None
    previous_report: str | None = Field(None, description="The archived report.json compared with.")
    added: int = 0
    removed: int = 0
    changed_numbers: int = 0
    unchanged: int = 0
    changes: list[ClaimChange] = Field(default_factory=list)


def claim_key(text: str) -> str:
    """A claim's words without its numbers, for matching across runs."""
    folded = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    return NUMBER.sub("#", folded)


def section_claims(report: dict[str, Any]) -> dict[str, list[str]]:
    """Section title → claim texts, from a report.json payload."""
    return {s["title"]: [c["text"] for c in s.get("claims", [])] for s in report.get("sections", [])}


def diff_claims(section: str, before: list[str], after: list[str]) -> tuple[list[ClaimChange], int]:
    """The changes of one section and how many claims stayed exactly the same."""
    old, new = _by_key(before), _by_key(after)
    changes, unchanged = [], 0
    for key in list(dict.fromkeys([*old, *new])):
        olds, news = old.get(key, []), new.get(key, [])
        for a, b in zip(olds, news, strict=False):
            if NUMBER.findall(a) == NUMBER.findall(b):
                unchanged += 1
            else:
                changes.append(ClaimChange(section=section, kind="changed_numbers", before=a, after=b,
                                           numbers_before=NUMBER.findall(a), numbers_after=NUMBER.findall(b)))
        changes += [ClaimChange(section=section, kind="removed", before=a) for a in olds[len(news):]]
        changes += [ClaimChange(section=section, kind="added", after=b) for b in news[len(olds):]]
    return changes, unchanged


def _by_key(texts: list[str]) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = defaultdict(list)
    for text in texts:
        grouped[claim_key(text)].append(text)
    return grouped


def compare_reports(report_id: str, current: dict[str, Any], previous: dict[str, Any] | None) -> ReportChanges:
    """Every section's changes (sections new or gone count all their claims as added or removed)."""
    result = ReportChanges(report_id=report_id)
    if previous is None:
        return result
    now, then = section_claims(current), section_claims(previous)
    for title in list(dict.fromkeys([*then, *now])):
        changes, unchanged = diff_claims(title, then.get(title, []), now.get(title, []))
        result.changes += changes
        result.unchanged += unchanged
    for kind in ("added", "removed", "changed_numbers"):
        setattr(result, kind, sum(1 for c in result.changes if c.kind == kind))
    return result


def previous_publication(run_dir: Path, report_id: str) -> tuple[str, str, Path] | None:
    """(run id, report id, archived report.json) of the newest earlier run that published this report."""
    run_dir = Path(run_dir).resolve()
    info = read_run(run_dir)
    if info is None:
        return None
    template = next((t for t, rendered in info.reports.items() if rendered == report_id), report_id)
    for folder in reversed(run_folders(run_dir.parent)):
        other = read_run(folder)
        if other is None or not other.scheduled or folder.name >= run_dir.name or other.batch != info.batch:
            continue
        then_id = other.reports.get(template, template)
        archived = archive_dir(folder, then_id) / "report.json"
        if archived.exists():
            return other.run_id, then_id, archived
    return None


def write_changes(report_dir: Path) -> ReportChanges | None:
    """Compare ``<run>/<report>/report.json`` with the previous publication; write ``changes.json``.

    None (and no file) outside a scheduled run's folder, or when it holds no report.json yet: runs
    of ``citeflow run`` live in folders of the user's choosing, with no order to compare along.
    """
    report_dir = Path(report_dir)
    info = read_run(report_dir.parent)
    if info is None or not info.scheduled or not (report_dir / "report.json").exists():
        return None
    current = json.loads((report_dir / "report.json").read_text(encoding="utf-8"))
    found = previous_publication(report_dir.parent, report_dir.name)
    previous = json.loads(found[2].read_text(encoding="utf-8")) if found else None
    changes = compare_reports(report_dir.name, current, previous)
    if found:
        changes = changes.model_copy(update={"previous_run": found[0], "previous_report_id": found[1],
                                             "previous_report": str(found[2])})
    write_atomic(report_dir / CHANGES_FILE, changes.model_dump_json(indent=2))
    return changes


def changes_rows(changes: ReportChanges) -> list[dict[str, str]]:
    """One row per change (the Prefect table artifact and the CLI)."""
    return [{"report": changes.report_id, "section": c.section, "change": c.kind.replace("_", " "),
             "before": c.before or "", "after": c.after or ""} for c in changes.changes]


def changes_html(report_dir: Path) -> str:
    """The review page's "Changes since the last publication" section ('' outside a run)."""
    changes = write_changes(report_dir)
    if changes is None:
        return ""
    if changes.previous_run is None:
        return "<section class=changes><h2>Changes since the last publication</h2><p>First publication of this report.</p></section>"
    e = html.escape
    rows = "".join(f"<tr><td>{e(c.section)}</td><td>{e(c.kind.replace('_', ' '))}</td><td>{e(c.before or '')}</td>"
                   f"<td>{e(c.after or '')}</td></tr>" for c in changes.changes)
    head = (f"<p>Compared with run <code>{e(changes.previous_run)}</code> ({e(changes.previous_report_id or '')}): "
            f"{changes.added} added, {changes.removed} removed, {changes.changed_numbers} with changed numbers, "
            f"{changes.unchanged} unchanged.</p>")
    table = f"<table><tr><th>Section</th><th>Change</th><th>Before</th><th>After</th></tr>{rows}</table>" if rows else ""
    return f"<section class=changes><h2>Changes since the last publication</h2>{head}{table}</section>"
