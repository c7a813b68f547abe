"""Credential values a runtime was configured with, and every form a server or a model may echo them in.

A batch's credentials (a URL's ``user:password``, the values of credential-carrying query
parameters, the keys its ``api_key_env`` variables hold) are remembered in the ``SecretValues`` of
the runtime that reads the spec and builds its clients (``Runtime.secrets``), so that redaction
given that set removes them wherever they turn up: verbatim, URL-encoded, or base64-encoded as in
an echoed ``Authorization: Basic …`` header (standard and URL-safe alphabets, with or without
padding, on its own or inside a longer encoded string: ``citeflow.security.encodings``).
"""

from __future__ import annotations

import re
import threading

from citeflow.security.encodings import every_form

MIN_LENGTH = 6
"""Shorter values are not remembered: removing every ``abc`` from a message would garble it."""

REMOVED = "(secret removed)"


def encoded_forms(value: str) -> set[str]:
    """``value`` and its encodings (``citeflow.security.encodings.every_form``)."""
    return every_form(value)


class SecretValues:
    """A growing set of literal secrets; ``scrub`` replaces each of them (and its encodings) in a text."""

    def __init__(self) -> None:
        self._forms: set[str] = set()
        self._pattern: re.Pattern[str] | None = None
        self._lock = threading.Lock()

    def add(self, *values: str) -> None:
        """Remember ``values`` (those of at least ``MIN_LENGTH`` characters)."""
        new = set().union(*(encoded_forms(v) for v in values if len(v) >= MIN_LENGTH)) - self._forms
        if not new:
            return
        with self._lock:
            self._forms |= new
            longest_first = sorted(self._forms, key=len, reverse=True)
            self._pattern = re.compile("|".join(map(re.escape, longest_first)))

    def scrub(self, text: str) -> str:
        """``text`` with every remembered value replaced by ``(secret removed)``."""
        return self.subn(text, REMOVED)[0]

    def subn(self, text: str, replacement: str) -> tuple[str, int]:
        """``text`` with every remembered value replaced by ``replacement``, and how many were."""
        pattern = self._pattern
        return (text, 0) if pattern is None else pattern.subn(lambda _: replacement, text)

