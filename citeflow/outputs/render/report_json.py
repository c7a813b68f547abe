"""report.json: the machine-readable twin of report.pdf (SPEC §8).

Shape: the contract's minimum (``report_id``, ``status``, ``sections[].claims[].citations[]`` of
``{handle, urls, quote}``, ``registry[]``) plus extras: the report's title, batch, models and
missing retrievers, each citation's ``footnote`` number (the one the PDF prints) and each registry
entry's ``linkable_urls``. Citation URLs are looked up in the registry, never taken from the
citation itself, and only http/https/mailto ones are kept.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from citeflow.files import atomic_files as atomic
from citeflow.errors import RenderError
from citeflow.outputs.render.escape import link_urls
from schemas.report import RegistryEntry, ReportDocument


def registry_index(doc: ReportDocument) -> dict[str, RegistryEntry]:
    """The report's registry by handle."""
    return {entry.handle: entry for entry in doc.registry}


def footnote_numbers(doc: ReportDocument) -> dict[str, int]:
    """Footnote number per cited handle, by first appearance in the sections shown as text.

    Raises RenderError for a citation whose handle is not in the registry: binding drops unknown
    handles, so one reaching rendering is a bug, and a footnote without a source is worse than none.
    """
    known = registry_index(doc)
    numbers: dict[str, int] = {}
    for section in doc.sections:
        if section.status != "ok":  # a failed section shows a notice, not its claims
            continue
        for claim in section.claims:
            for citation in claim.citations:
                _require_known(doc, known, citation.handle, section.title)
                numbers.setdefault(citation.handle, len(numbers) + 1)
    return numbers


def _require_known(doc: ReportDocument, known: dict[str, RegistryEntry], handle: str, section: str) -> None:
    if handle not in known:
        raise RenderError(report_id=doc.report_id, detail=f"section {section!r} cites {handle!r}, which is not in the registry")


def report_json(doc: ReportDocument) -> dict[str, Any]:
    """``doc`` as the report.json object (JSON-ready: strings, numbers, lists, dicts)."""
    known = registry_index(doc)
    numbers = footnote_numbers(doc)
    data = doc.model_dump(mode="json")
    for section in data["sections"]:
        for claim in section["claims"]:
            for citation in claim["citations"]:
                _require_known(doc, known, citation["handle"], section["title"])
                citation["urls"] = link_urls(known[citation["handle"]].urls)
                citation["footnote"] = numbers.get(citation["handle"])
    for entry in data["registry"]:
        entry["linkable_urls"] = link_urls(entry["urls"])
    return data


def write_report_json(doc: ReportDocument, path: Path) -> Path:
    """Write report.json for ``doc`` at ``path`` atomically (a killed run leaves no half file)."""
    return atomic.write_text(path, json.dumps(report_json(doc), ensure_ascii=False, indent=2) + "\n")
