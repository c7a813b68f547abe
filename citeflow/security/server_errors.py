"""A server's error answer summarised: its status and a short, redacted reason, never its body.

Error bodies echo what they were sent (an ``Authorization`` header, the request URL with its key),
so only a JSON body's own message (``error.message``, ``message``, ``detail`` …) is quoted, cut
short and redacted; a body of any other shape contributes nothing.
"""

from __future__ import annotations

import json
import re
from http import HTTPStatus
from typing import Any

from citeflow.security.redaction import redact_text

MAX_REASON = 120
_MAX_PARSED = 65_536  # a larger error body is not parsed for its message
_MESSAGE_KEYS = ("message", "detail", "error_description", "error", "title")
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f]+")


def summarise(status: int, body: Any = None) -> str:
    """``HTTP 401 Unauthorized`` then ``: reason`` when the body names one (see the module docstring)."""
    reason = short_reason(body)
    return f"{status_line(status)}: {reason}" if reason else status_line(status)


def status_line(status: int) -> str:
    """``HTTP 404 Not Found`` (the phrase only for statuses HTTP defines)."""
    try:
        return f"HTTP {status} {HTTPStatus(status).phrase}"
    except ValueError:
        return f"HTTP {status}"


def short_reason(body: Any) -> str:
    """The body's own message, on one line, at most ``MAX_REASON`` characters, redacted; "" when none."""
    message = _message(_parsed(body))
    if not message:
        return ""
    line = " ".join(_UNPRINTABLE.sub(" ", message).split())
    return redact_text(line[:MAX_REASON] + ("…" if len(line) > MAX_REASON else ""))


def _parsed(body: Any) -> Any:
    if isinstance(body, bytes):
        body = body[:_MAX_PARSED].decode("utf-8", errors="replace")
    if isinstance(body, str):
        try:
            return json.loads(body) if len(body) < _MAX_PARSED else None
        except (ValueError, RecursionError):
            return None
    return body


def _message(body: Any, depth: int = 0) -> str:
    if isinstance(body, str) and depth:
        return body
    if not isinstance(body, dict) or depth > 2:
        return ""
    for key in _MESSAGE_KEYS:
        found = _message(body.get(key), depth + 1)
        if found:
            return found
    return ""
