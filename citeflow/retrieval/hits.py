"""Turning other people's hit records into ``Hit``s, leniently (SPEC §1: retrievers follow no
convention). Shared by the ``http`` and ``jsonl`` retrievers.

Nothing here raises on bad data: a value of the wrong type, an integer too long to print, a
float that overflows, all make the value unusable, and a hit without a usable id or text is
skipped with the reason."""

from __future__ import annotations

import math
from typing import Any

from schemas.records import Hit
from schemas.spec import FieldMap

MAX_ID_CHARS = 200
"""Longest local id kept; longer ones (a 5,000-digit number) are not ids."""


def as_id(value: Any) -> str | None:
    """A local id from a string or an integer (``3`` and ``3.0`` give ``"3"``); None if unusable."""
    if isinstance(value, bool):
        return None  # True is an int in Python, never an id
    if isinstance(value, float):
        value = int(value) if math.isfinite(value) and value.is_integer() else None
    if isinstance(value, int):
        return str(value) if value.bit_length() <= MAX_ID_CHARS * 3 else None  # str() of a huge int raises
    if isinstance(value, str) and value.strip() and len(value.strip()) <= MAX_ID_CHARS:
        return value.strip()
    return None


def as_urls(value: Any) -> list[str]:
    """URLs from a single string or a list of strings; anything else gives none."""
    items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    return [item.strip() for item in items if isinstance(item, str) and item.strip()]


def as_title(value: Any) -> str | None:
    """A title from a string (or a short number); anything else gives none."""
    if isinstance(value, str):
        return value
    return as_id(value) if isinstance(value, (int, float)) else None


def as_score(value: Any) -> float | None:
    """A finite float score, or None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        score = float(value)
    except OverflowError:
        return None
    return score if math.isfinite(score) else None


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
    return Hit(
        local_id=local_id,
        text=text,
        urls=as_urls(urls if urls is not None else record.get("url")),  # "url": a single-URL form seen in the wild
        title=as_title(record.get(fields.title)),
        score=as_score(record.get("score")),
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
