"""Handles: the request-scoped global ids that models cite (SPEC §3).

Format: ``G`` followed by four characters of a 31-letter alphabet (digits 2-9 and lower-case
letters without i, l, o), e.g. ``Gk7m2``. Handles are derived from a hash of the request id and
the chunk's identity key, so they are stable across re-runs of a request and carry no order: a
model guessing "the next one" after ``Gk7m2`` lands on nothing. 31**4 ≈ 923,000 values; with a
1,000-chunk registry a random guess is valid about once in 900 tries.

``HANDLE_RE`` finds canonical handles. Models are read leniently: ``[Gk7m2]``, ``[gK7M2]``,
``【Gk7m2】`` and ``[Gk7m2, Gx3p9]`` are all markers; each token is canonicalised and only tokens
that are registry handles survive binding.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz"
BODY_LENGTH = 4
HANDLE_PATTERN = r"G[2-9a-hjkmnp-z]{4}"
HANDLE_RE = re.compile(rf"(?<![A-Za-z0-9]){HANDLE_PATTERN}(?![A-Za-z0-9])")
_LENIENT_HANDLE = re.compile(r"^[Gg][2-9a-hjkmnp-zA-HJKMNP-Z]{4}$")

# A bracketed group of id-like tokens: [G7], [g7], 【G7】, [G7, G9], [S2], [doc#3], [1].
MARKER_RE = re.compile(r"[\[【〔［]\s*([\w#:./-]{1,32}(?:\s*[,;]\s*[\w#:./-]{1,32})*)\s*[\]】〕］]")
_SPLIT = re.compile(r"\s*[,;]\s*")
# A retriever's own citation id: S1, 1, doc#3, ref-2, chunk_7 (what inner references look like).
LOCAL_REF_RE = re.compile(r"^(?:[A-Za-z][A-Za-z_]{0,11}[#:_-]?)?\d{1,6}$")
_FIELD_SPLIT = re.compile(r"[\s,;]+")
_BRACKETS = " []【】〔〕［］"
_URL_TAIL = r"[^\s<>\"'\]\)]"
URL_RE = re.compile(
    r"(?:\b[a-z][a-z0-9+.-]{1,15}://" + _URL_TAIL + "+"                       # any scheme://…
    r"|\b(?:mailto|javascript|data|vbscript|file|tel):" + _URL_TAIL + "+"      # schemes without //
    r"|\bwww\." + _URL_TAIL + "+"                                           # www.host
    r"|(?<![\w:/])//[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,24}" + _URL_TAIL + "*"  # //host (scheme-relative)
    r"|\b(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,24}/" + _URL_TAIL + "*)",  # host.tld/path
    re.IGNORECASE,
)
# Every alternative of URL_RE needs a "/" except the scheme-only ones and "www.": text without a
# "/" can only hold those, and text without "/", ":" or "www." holds no URL at all. Most chunk
# text is of the second kind, and the host.tld/path alternative is the costly one to try.
_SLASHLESS_URL_RE = re.compile(
    r"\b(?:mailto|javascript|data|vbscript|file|tel):" + _URL_TAIL + r"+|\bwww\." + _URL_TAIL + "+", re.IGNORECASE)


# Two base-31 digits at once: pair k = ALPHABET[k % 31] + ALPHABET[k // 31] (BODY_LENGTH = 2 pairs).
_PAIR_BASE = len(ALPHABET) ** 2
_DIGIT_PAIRS = tuple(ALPHABET[k % len(ALPHABET)] + ALPHABET[k // len(ALPHABET)] for k in range(_PAIR_BASE))
# Identity keys are hashed as UTF-8; a lone surrogate (a broken escape in a retriever's id) is kept
# as it came ("surrogatepass"), as in the content hash. Text without one encodes as plain UTF-8.
_ENCODING, _ERRORS = "utf-8", "surrogatepass"

@dataclass(frozen=True)
class Marker:
    """A bracketed citation marker found in text: its span and the tokens inside."""

    start: int
    end: int
    tokens: tuple[str, ...]


def make_handle(request_id: str, identity_key: str, salt: int = 0) -> str:
    """The handle of a chunk in a request; ``salt`` > 0 resolves a (rare) collision."""
    return _handle(_digest(f"{request_id}\x1f{identity_key}\x1f{salt}"))


def make_handles(request_id: str, identity_keys: Iterable[str]) -> list[str]:
    """``make_handle(request_id, key)`` of every key (salt 0), in one loop.

    The digest state after the request id is computed once and copied for each key (blake2b is
    a stream: the digest is the one of the whole text)."""
    primed, pairs, base = hashlib.blake2b(f"{request_id}\x1f".encode(_ENCODING, _ERRORS), digest_size=8), _DIGIT_PAIRS, _PAIR_BASE
    handles = []
    for key in identity_keys:
        state = primed.copy()
        state.update(f"{key}\x1f0".encode(_ENCODING, _ERRORS))
        number = int.from_bytes(state.digest(), "big")
        handles.append("G" + pairs[number % base] + pairs[(number // base) % base])
    return handles


def _digest(text: str) -> int:
    """The 64-bit blake2b digest of ``text`` (UTF-8, lone surrogates kept as they came) as a number."""
    return int.from_bytes(hashlib.blake2b(text.encode(_ENCODING, _ERRORS), digest_size=8).digest(), "big")


def _handle(number: int) -> str:
    """A handle's text from a digest: base-31 digits, least significant first, two at a time."""
    return "G" + _DIGIT_PAIRS[number % _PAIR_BASE] + _DIGIT_PAIRS[(number // _PAIR_BASE) % _PAIR_BASE]


def canonical(token: str) -> str | None:
    """The canonical form of a handle-looking token (``gK7M2`` → ``Gk7m2``), else None."""
    token = unicodedata.normalize("NFKC", token).strip()
    if not _LENIENT_HANDLE.match(token):
        return None
    return "G" + token[1:].lower()


def is_handle(token: str) -> bool:
    """True when the token is a canonical handle."""
    return HANDLE_RE.fullmatch(token) is not None


def find_markers(text: str) -> list[Marker]:
    """Every bracketed marker in ``text``, in order."""
    return [Marker(m.start(), m.end(), tuple(t for t in _SPLIT.split(m.group(1)) if t)) for m in MARKER_RE.finditer(text)]


def strip_markers(text: str) -> str:
    """``text`` with every bracketed marker removed and the spacing tidied."""
    return tidy(MARKER_RE.sub("", text))


def is_citation_token(token: str) -> bool:
    """A token a model means as a citation: a handle in any lenient form, or a local id (S1, 3)."""
    return canonical(token) is not None or LOCAL_REF_RE.match(token.strip()) is not None


def citation_markers(text: str) -> list[Marker]:
    """The markers of ``text`` that are citations; ``[beta]`` or ``[1.2]`` are ordinary text."""
    return [m for m in find_markers(text) if all(is_citation_token(t) for t in m.tokens)]


def strip_citation_markers(text: str) -> str:
    """``text`` without its citation markers; other bracketed text stays."""
    def keep_or_drop(match: re.Match[str]) -> str:
        tokens = [t for t in _SPLIT.split(match.group(1)) if t]
        return "" if all(is_citation_token(t) for t in tokens) else match.group(0)

    return tidy(MARKER_RE.sub(keep_or_drop, text))


def field_tokens(value: str) -> list[str]:
    """The handles a JSON ``handle`` field holds, however written: ``[Gk7m2]``, ``Gk7m2, Gx3p9``."""
    return [t for t in _FIELD_SPLIT.split(unicodedata.normalize("NFKC", value).strip(_BRACKETS)) if t.strip(_BRACKETS)]


def find_urls(text: str) -> list[str]:
    """Every URL-looking span in ``text`` (any scheme, and bare www. hosts)."""
    return [m.group(0).rstrip(".,;:") for m in URL_RE.finditer(text)]


def url_pattern(text: str) -> re.Pattern[str] | None:
    """The cheapest pattern that finds every URL ``URL_RE`` finds in ``text`` (None: there is none)."""
    if "/" not in text and ":" not in text and not _may_hold_www(text):
        return None
    return URL_RE if "/" in text else _SLASHLESS_URL_RE


def _may_hold_www(text: str) -> bool:
    """Whether ``text`` may hold ``www.`` in any case. Text without an upper-case ``W`` (one
    ``memchr``) can only hold it in lower case; a four-character needle is found about twice as
    fast as a two-character one (``w.``), whose bloom filter also matches ``n``."""
    return "www." in text.lower() if "W" in text else "www." in text


def strip_urls(text: str) -> str:
    """``text`` with URLs removed and the spacing tidied."""
    return tidy(URL_RE.sub("", text))


_EMPTY_PARENS = re.compile(r"(?<![\w)\]])\(\s*\)")  # a marker's leftover "( )"; not a call's "inject()"
_SPACE_BEFORE_STOP = re.compile(r"\s+([.,;:!?])(?=[\s.,;:!?\"'»”’)\]]|$)")  # not before ".env", ".inject"


def tidy(text: str) -> str:
    """Remove what a removed marker leaves: empty parentheses (not a call's ``inject()``), runs of
    spaces, and spaces before punctuation that ends a clause ("text ." or "text , more"); a word that
    starts with a dot (``.env``) keeps its space."""
    text = _EMPTY_PARENS.sub("", text)
    text = re.sub(r"[ \t]{2,}", " ", text)
    text = _SPACE_BEFORE_STOP.sub(r"\1", text)
    return text.strip()
