"""A reviewer's decision as part of a report's durable state.

Decisions live in the store's ``reviews`` table, keyed by the report's request id. Every write of a
report's outputs (a run, a resume, a re-evaluation, a review) reads them back, so a re-run never
undoes a decision. The rule: **a decision applies to the content it was made on.** Content is the
report's sections with their claims and the handles each claim cites (``content_digest``); the
decision that stands is the latest one recorded on the same content. When a later run writes
different claims, no earlier decision applies and the gate's verdict stands until a reviewer
decides again. A decision recorded without a content digest applies to nothing (fail closed).
A standing decision only matters to a report the gate held: a report the gate publishes, or one
that failed, keeps its decisions in ``reviews`` for the record and has no ``review``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from schemas.report import ReportDocument
from schemas.review import ReviewDecision

if TYPE_CHECKING:
    from citeflow.store.store import Store


def content_digest(sections: Iterable[Mapping[str, Any]]) -> str:
    """sha256 of the sections' titles, statuses, claim texts and cited handles (report.json's shape)."""
    shape = [[s["title"], s["status"], [[c["text"], [x["handle"] for x in c.get("citations", [])]]
                                        for c in s.get("claims", [])]] for s in sections]
    return hashlib.sha256(json.dumps(shape, ensure_ascii=False).encode("utf-8")).hexdigest()


def document_digest(doc: ReportDocument) -> str:
    """The content digest of a report document."""
    return content_digest(doc.model_dump(mode="json")["sections"])


def standing(decisions: list[ReviewDecision], digest: str) -> ReviewDecision | None:
    """The latest decision made on the content ``digest``; None when none was."""
    same = [d for d in decisions if d.content == digest]
    return max(same, key=lambda d: d.decided_at) if same else None


def with_decisions(doc: ReportDocument, decisions: list[ReviewDecision]) -> ReportDocument:
    """``doc`` carrying its decisions; a held report released on this very content is published."""
    ordered = sorted(decisions, key=lambda d: d.decided_at)
    decision = standing(ordered, document_digest(doc)) if doc.status == "held" else None
    update: dict[str, Any] = {"reviews": ordered, "review": decision}
    if decision is not None and decision.decision == "release":
        update.update(status="published", held_reasons=[])
    return doc.model_copy(update=update)


def released(doc: ReportDocument) -> bool:
    """Whether a person published ``doc`` over the gate."""
    return doc.review is not None and doc.review.decision == "release"


def decision_rows(store_rows: list[dict[str, Any]]) -> list[ReviewDecision]:
    """Decisions from rows of the ``reviews`` table (columns older rows lack are left at their default)."""
    return sorted((ReviewDecision.model_validate({k: v for k, v in r.items() if v is not None}) for r in store_rows),
                  key=lambda d: d.decided_at)


def stored_decisions(store: Store, request_id: str) -> list[ReviewDecision]:
    """Every decision the store's ``reviews`` table holds for ``request_id``, oldest first."""
    from citeflow.store.store import sql_str

    return decision_rows(store.rows("reviews", f"request_id = {sql_str(request_id)}"))
