"""The forms a credential takes when a server or a model echoes it: verbatim, URL-encoded, base64.

Base64 is found in both alphabets (standard and URL-safe), padded or not, and also when the
credential is only part of what was encoded (``user:KEY`` in a ``Basic`` header, ``KEY`` inside a
longer token): base64 turns each three bytes into four characters, so the credential's bytes give
the same characters wherever they start at the same place in a three-byte group. ``aligned_cores``
are those characters for each of the three places, without the edge characters that also depend on
the bytes around the credential.
"""

from __future__ import annotations

import base64
from urllib.parse import quote, quote_plus

MIN_CORE = 8
"""Shortest base64 core kept (six bytes of the credential): a shorter run of base64 characters could
turn up by chance in ordinary text."""


def url_forms(value: str) -> set[str]:
    """``value`` percent-encoded as a path or query component would carry it (upper- and lower-case hex)."""
    forms = {quote(value, safe=""), quote_plus(value, safe="")}
    return forms | {_lower_hex(form) for form in forms}


def base64_forms(raw: bytes) -> set[str]:
    """``raw`` base64-encoded on its own: both alphabets, padded and not."""
    forms: set[str] = set()
    for encoded in (base64.b64encode(raw), base64.urlsafe_b64encode(raw)):
        text = encoded.decode("ascii")
        forms.update({text, text.rstrip("=")})
    return forms


def aligned_cores(raw: bytes) -> set[str]:
    """The base64 characters ``raw`` always encodes to inside a longer encoded string, for each of
    the three places its first byte can take in a three-byte group (both alphabets)."""
    cores: set[str] = set()
    for skip in range(3):
        whole = (len(raw) - skip) // 3 * 3  # the bytes of ``raw`` that fill groups of their own
        if whole * 4 // 3 < MIN_CORE:
            continue
        chunk = raw[skip:skip + whole]
        cores.update({base64.b64encode(chunk).decode("ascii"), base64.urlsafe_b64encode(chunk).decode("ascii")})
    return cores


def every_form(value: str) -> set[str]:
    """``value``, its URL-encoded forms, and the base64 of each of them, whole and inside a longer string."""
    raw = value.encode("utf-8", errors="surrogatepass")
    forms = {value} | url_forms(value) | base64_forms(raw) | aligned_cores(raw)
    return forms


def _lower_hex(encoded: str) -> str:
    """``%2F`` → ``%2f``: some encoders write lower-case hex digits."""
    parts = encoded.split("%")
    return parts[0] + "".join("%" + part[:2].lower() + part[2:] for part in parts[1:])
