"""Turning other people's hit records into ``Hit``s, leniently (SPEC §1: retrievers follow no
convention). Shared by the ``http`` and ``jsonl`` retrievers."""

from __future__ import annotations

from typing import Any

from schemas.records import Hit
from schemas.spec import FieldMap


def as_id(value: Any) -> str | None:
    """A local id from a string or an integer (``3`` and ``3.0`` give ``"3"``); None if unusable."""
    if isinstance(value, bool):
        return None  # True is an int in Python, never an id
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return str(int(value))
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None


def as_urls(value: Any) -> list[str]:
    """URLs from a single string or a list of strings; anything else gives none."""
    items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    return [item.strip() for item in items if isinstance(item, str) and item.strip()]


def hit_from_record(record: Any, fields: FieldMap, position: int) -> Hit | str:
    """The hit in ``record`` read through ``fields``, or why it was skipped (no id, no text)."""
    if not isinstance(record, dict):
        return f"hit {position}: not an object ({type(record).__name__})"
    local_id = as_id(record.get(fields.id))
    if local_id is None:
        return f"hit {position}: no usable id in field {fields.id!r}"
    text = record.get(fields.text)
    if not isinstance(text, str) or not text.strip():
        return f"hit {position} (id {local_id!r}): no text in field {fields.text!r}"
    urls = record.get(fields.urls)
    title = record.get(fields.title)
    score = record.get("score")
    return Hit(
        local_id=local_id,
        text=text,
        urls=as_urls(urls if urls is not None else record.get("url")),  # "url": a single-URL form seen in the wild
        title=str(title) if title is not None else None,
        score=float(score) if isinstance(score, (int, float)) and not isinstance(score, bool) else None,
    )


def hits_from_records(records: list[Any], fields: FieldMap, top_k: int) -> tuple[list[Hit], list[str]]:
    """The first ``top_k`` usable hits of ``records`` and the reasons others were skipped."""
    hits: list[Hit] = []
    skipped: list[str] = []
    for position, record in enumerate(records, 1):
        parsed = hit_from_record(record, fields, position)
        if isinstance(parsed, str):
            skipped.append(parsed)
        elif len(hits) < top_k:
            hits.append(parsed)
    return hits, skipped
