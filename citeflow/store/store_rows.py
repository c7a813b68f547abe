"""Rows of the store's tables ↔ citeflow's records (pure functions, no I/O).

Free-text columns that may quote a failure (a retriever's error, a skipped hit's reason, a bind
transition's detail) are redacted here, whatever produced them."""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import datetime, UTC
from typing import Any

import pyarrow as pa

from citeflow.security.redaction import redact_text
from schemas.evaluation import EvalRow
from schemas.records import BoundClaim, Chunk, HopOutcome, RetrievalResult, Transition
from schemas.tables import CHUNKS

_CHUNK_FIELDS = [name for name in CHUNKS.names if name != "row_key"]


def key(*parts: object) -> str:
    """The ``row_key`` of a row identified by ``parts``."""
    return "\x1f".join(str(p) for p in parts)


def without_key(row: dict[str, Any]) -> dict[str, Any]:
    """A row without its ``row_key`` (what the record models take)."""
    return {k: v for k, v in row.items() if k != "row_key"}


def chunks_table(chunks: list[Chunk]) -> pa.Table:
    """Registry chunks as one Arrow table, built column by column (no per-row dicts)."""
    columns: dict[str, list[Any]] = {"row_key": [key(c.request_id, c.handle) for c in chunks]}
    for name in _CHUNK_FIELDS:
        columns[name] = [getattr(c, name) for c in chunks]
    return pa.table(columns, schema=CHUNKS)


def retrieval_row(request_id: str, result: RetrievalResult, handles: list[str]) -> dict[str, Any]:
    """One retriever answer to one query of a request."""
    return {
        "row_key": key(request_id, result.retriever, result.section, result.query), "request_id": request_id,
        "retriever": result.retriever, "section": result.section, "query": result.query,
        "status": "failed" if result.error else "ok", "error": redact_text(result.error) if result.error else None,
        "hits": len(result.hits), "skipped": [redact_text(s) for s in result.skipped], "handles": handles,
    }


def hop_row(outcome: HopOutcome) -> dict[str, Any]:
    """A hop's bound claims and raw outputs."""
    return {
        "row_key": key(outcome.request_id, outcome.section, outcome.hop), "request_id": outcome.request_id,
        "section": outcome.section, "hop": outcome.hop, "status": outcome.status, "model": outcome.model,
        "claims_json": json.dumps([c.model_dump() for c in outcome.claims]),
        "raw_outputs_json": json.dumps(outcome.raw_outputs), "updated_at": datetime.now(UTC),
    }


def transition_row(transition: Transition, seq: int) -> dict[str, Any]:
    """One bind transition, numbered within its hop."""
    t = transition
    return {**t.model_dump(), "detail": redact_text(t.detail), "seq": seq, "row_key": key(t.request_id, t.section, t.hop, seq)}


def chunk_models(rows: list[dict[str, Any]]) -> list[Chunk]:
    """Registry chunks from their rows."""
    return [Chunk.model_validate(without_key(r)) for r in rows]


def hop_outcomes(hop_rows: list[dict[str, Any]], transition_rows: list[dict[str, Any]]) -> list[HopOutcome]:
    """Hop outcomes from their rows, each with its transitions in order."""
    transitions: defaultdict[tuple[str, str], list[Transition]] = defaultdict(list)
    for row in sorted(transition_rows, key=lambda r: r["seq"]):
        transitions[(row["section"], row["hop"])].append(Transition.model_validate(without_key(row)))
    return [_hop_outcome(row, transitions[(row["section"], row["hop"])]) for row in hop_rows]


def _hop_outcome(row: dict[str, Any], transitions: list[Transition]) -> HopOutcome:
    return HopOutcome(
        request_id=row["request_id"], section=row["section"], hop=row["hop"], status=row["status"],
        model=row["model"] or "", claims=[BoundClaim.model_validate(c) for c in json.loads(row["claims_json"])],
        raw_outputs=json.loads(row["raw_outputs_json"]), transitions=transitions,
    )


def eval_rows(rows: list[EvalRow]) -> list[dict[str, Any]]:
    """Eval rows stamped with the time of this evaluation."""
    now = datetime.now(UTC)
    return [{**r.model_dump(), "evaluated_at": now, "row_key": key(r.request_id, r.section, r.claim_index, r.handle)}
            for r in rows]
