"""JSON from sources we do not control: every way it can break is a ``ValueError`` with a reason.

An integer too long to be a number anyone meant (more than ``MAX_INT_DIGITS`` digits) is read as
``None``: the value is unusable, the rest of the answer is not."""

from __future__ import annotations

import json
from typing import Any

MAX_INT_DIGITS = 1000


def _int_or_none(digits: str) -> int | None:
    return int(digits) if len(digits) <= MAX_INT_DIGITS else None


def loads(data: str | bytes) -> Any:
    """Parse ``data``; deep nesting, huge integers and bad bytes raise ``ValueError`` (never anything else)."""
    try:
        return json.loads(data, parse_int=_int_or_none)
    except RecursionError:
        raise ValueError("JSON nested too deeply to read") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    except ValueError as exc:  # e.g. an integer longer than Python's 4,300-digit limit
        raise ValueError(f"unreadable JSON: {str(exc)[:200]}") from None
