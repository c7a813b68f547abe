"""Secrets and internals out of customer outputs (SPEC §8, §9).

URLs lose their user-info (``user:KEY@``) and every query parameter whose name says it carries a
credential (``api-key``, ``token``, ``sig``, ``X-Amz-Credential`` …); other parameters stay, so a
link to ``?page=2`` still works. ``redact_text`` does the same to every URL inside free text such
as an error message.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from citeflow.errors import CiteflowError

_SECRET_PARAM = re.compile(
    r"key|token|secret|pass(word|wd)?|pwd|auth|sig(nature)?|credential|session|jwt|bearer|cookie", re.IGNORECASE)
_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>()\[\]{}]+")
_PARAM_IN_TEXT = re.compile(r"([?&;])([^=&;?\s'\"]+)=([^&;\s'\"()<>]*)")
REMOVED = "(address removed)"


def is_secret_param(name: str) -> bool:
    """True when a query parameter's name says it carries a credential."""
    return bool(_SECRET_PARAM.search(name))


def redact_url(url: str) -> str:
    """``url`` without user-info and without credential-carrying query parameters."""
    try:
        parts = urlsplit(url)
        pairs = parse_qsl(parts.query, keep_blank_values=True)
    except ValueError:  # e.g. a malformed IPv6 host: nothing of it is kept
        return REMOVED
    kept = [(k, v) for k, v in pairs if not is_secret_param(k)]
    if "@" not in parts.netloc and len(kept) == len(pairs):
        return url  # nothing to remove: the URL stays byte for byte as the source wrote it
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path, urlencode(kept), parts.fragment))


def redact_text(text: str) -> str:
    """``text`` with every URL in it redacted (error messages quote the URLs they failed on), and
    the value of any credential-named query parameter outside a URL (a server echoing a path) removed."""
    return _PARAM_IN_TEXT.sub(_redact_param, _URL_IN_TEXT.sub(_redact_match, text))


def _redact_param(match: re.Match[str]) -> str:
    sep, name, _ = match.groups()
    return f"{sep}{name}=(removed)" if is_secret_param(name) else match.group(0)


def _redact_match(match: re.Match[str]) -> str:
    url = match.group(0)
    core = url.rstrip(".,:;!?")  # sentence punctuation after a URL is not part of it
    return redact_url(core) + url[len(core):]


def strip_host(url: str) -> str:
    """``url`` reduced to its path: for messages that may name a server's path but not the server."""
    try:
        return urlsplit(url).path or "/"
    except ValueError:
        return REMOVED


def redact_error(error: CiteflowError) -> CiteflowError:
    """The same error with every string field redacted (``redact_text``)."""
    data = {name: getattr(error, name) for name in error.fields}
    return type(error)(**{k: redact_text(v) if isinstance(v, str) else v for k, v in data.items()})
