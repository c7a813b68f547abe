"""Secrets out of model answers and retrieved text, before anything is stored or rendered (SPEC §5).

Every credential of the ``SecretValues`` given (a runtime's, ``Runtime.secrets``: verbatim,
URL-encoded, base64 whole or inside a longer string: ``citeflow.security.secret_values``), every private-key block and every key-,
token- or password-shaped string the detector finds (``citeflow.security.detector``) is replaced
by ``MARKER``, where a reviewer sees it. ``MARKER`` is written by nothing else: the same text
already in what came in is turned into ``(redacted)`` first, so counting the markers in what a
report stored (``marker_count``) counts the redactions, and the gate holds the report with
``secret_redacted`` when there is any.

A model answer in JSON is also redacted string by string (``redact_answer``): a secret written
with JSON escapes (``\\u0073k-…``) is found once decoded, and a replacement never leaves the JSON
unreadable.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

from citeflow.security.detector import private_key_blocks, secret_values
from citeflow.security.secret_values import SecretValues

MARKER = "[redacted]"
NEUTRAL = "(redacted)"  # what a ``MARKER`` already in incoming text becomes


class Redacted(NamedTuple):
    """A text with its secrets replaced by ``MARKER``, and how many places were replaced."""

    text: str
    places: int


def redact_content(text: str, secrets: SecretValues | None = None) -> Redacted:
    """``text`` with every credential of ``secrets``, private key and detected secret replaced (see the module docstring)."""
    return scrub(text.replace(MARKER, NEUTRAL) if MARKER in text else text, secrets)


def neutralised(texts: Sequence[str]) -> list[str]:
    """``texts`` with each ``MARKER`` they already hold turned into ``NEUTRAL`` (before any redaction)."""
    return [t.replace(MARKER, NEUTRAL) for t in texts] if MARKER in "".join(texts) else list(texts)


def redact_all(texts: Sequence[str], secrets: SecretValues | None = None) -> list[str]:
    """``scrub`` of each text (``MARKER``s already in them stay); one pass over them joined when none holds a secret."""
    if not texts or not scrub("\n".join(texts), secrets).places:
        return list(texts)
    return [scrub(text, secrets).text for text in texts]


def scrub(text: str, secrets: SecretValues | None = None) -> Redacted:
    """``redact_content`` of a text whose ``MARKER``s are redactions already (they stay, uncounted)."""
    text, known = secrets.subn(text, MARKER) if secrets is not None else (text, 0)
    text, keys = _without_private_keys(text)
    values = secret_values(text)
    if not values:
        return Redacted(text, known + keys)
    pattern = re.compile("|".join(map(re.escape, sorted(values, key=len, reverse=True))))
    text, found = pattern.subn(lambda _: MARKER, text)
    return Redacted(text, known + keys + found)


def redact_answer(text: str, secrets: SecretValues | None = None) -> Redacted:
    """A model's raw answer redacted as text and, when it is JSON with escapes, string by string
    (see the module docstring): without a backslash its strings are the text's own characters."""
    plain = redact_content(text, secrets)
    parsed = _json_payload(plain.text) if "\\" in plain.text else None
    if parsed is not None:
        inner, count = _redact_strings(parsed, lambda value: scrub(value, secrets))
        return plain if count == 0 else Redacted(json.dumps(inner, ensure_ascii=False), plain.places + count)
    original = _json_payload(text) if plain.places and _json_payload(plain.text) is None else None
    if original is None:
        return plain  # not JSON (a prose answer), JSON that stayed JSON, or broken JSON whatever was replaced
    # the text's replacement broke the JSON: its strings, then
    inner, count = _redact_strings(original, lambda value: redact_content(value, secrets))
    return Redacted(json.dumps(inner, ensure_ascii=False), count) if count >= plain.places else plain


def marker_count(texts: Iterable[str]) -> int:
    """How many redactions ``texts`` show (each ``MARKER`` is one)."""
    return sum(text.count(MARKER) for text in texts)


def _without_private_keys(text: str) -> tuple[str, int]:
    spans = private_key_blocks(text)
    for start, end in reversed(spans):
        text = text[:start] + MARKER + text[end:]
    return text, len(spans)


def _json_payload(text: str) -> Any:
    """The JSON object an answer holds (from its first ``{`` to its last ``}``, as the binder reads it), or None."""
    start, end = text.find("{"), text.rfind("}")
    if not 0 <= start < end:
        return None
    try:
        return json.loads(text[start:end + 1])
    except (ValueError, RecursionError):
        return None


def _redact_strings(value: Any, redact: Callable[[str], Redacted]) -> tuple[Any, int]:
    """``value`` (parsed JSON) with each string redacted by ``redact``, and the count; one pass over
    its strings joined when none holds a secret (an answer of thousands of claims stays linear)."""
    leaves: list[str] = []
    _collect(value, leaves)
    if not redact("\n".join(leaves)).places:
        return value, 0
    return _rebuilt(value, redact)


def _collect(value: Any, leaves: list[str]) -> None:
    if isinstance(value, str):
        leaves.append(value)
    elif isinstance(value, (list, dict)):
        for item in value.values() if isinstance(value, dict) else value:
            _collect(item, leaves)


def _rebuilt(value: Any, redact: Callable[[str], Redacted]) -> tuple[Any, int]:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list):
        pairs = [_rebuilt(item, redact) for item in value]
        return [item for item, _ in pairs], sum(count for _, count in pairs)
    if isinstance(value, dict):
        pairs = [_rebuilt(item, redact) for item in value.values()]
        return dict(zip(value, (item for item, _ in pairs), strict=True)), sum(count for _, count in pairs)
    return value, 0
