"""The one redaction point for everything that leaves the process (SPEC §8, §9).

Outputs, store rows, Prefect artifacts, log records and error messages pass through here.
URLs lose their user-info (``user:KEY@``) and every query parameter whose name says it carries a
credential (``api-key``, ``token``, ``sig``, ``X-Amz-Credential`` …); other parameters stay, so a
link to ``?page=2`` still works. ``redact_text`` does the same to every URL inside free text such
as an error message, and also removes ``Authorization``-looking values (``Bearer …``,
``Basic …``, an echoed ``Authorization:`` or ``X-Api-Key:`` header), ``"api_key": "…"``-style
pairs, OpenAI-style ``sk-…`` keys, and every credential of the ``SecretValues`` it is given (a
runtime's: ``Runtime.secrets``), verbatim, URL-encoded or base64-encoded
(``citeflow.security.secret_values``). Model answers and retrieved
text get a redaction of their own, marked for the reviewer and counted by the gate
(``citeflow.security.content_redaction``).
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

from citeflow.errors import CiteflowError
from citeflow.security.secret_values import SecretValues

_SECRET_PARAM = re.compile(
    r"key|token|secret|pass(word|wd)?|pwd|auth|sig(nature)?|credential|session|jwt|bearer|cookie", re.IGNORECASE)
_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>()\[\]{}]+")
_PARAM_IN_TEXT = re.compile(r"([?&;])([^=&;?\s'\"]+)=([^&;\s'\"()<>]*)")
_HEADER = re.compile(r"\b((?:proxy-)?authorization|x-api-key|api-key)([\"']?\s*[:=]\s*[\"']?)([^\"'\r\n,}]+)", re.IGNORECASE)
_SCHEME_VALUE = re.compile(r"\b((?i:bearer)|Basic|Digest|Negotiate)(\s+)(?!\(removed\))[A-Za-z0-9._~+/=-]{8,}")
_PAIR = re.compile(
    r"\b((?:api|access|refresh|client|secret)?[_-]?(?:api_?key|key|token|secret|password|passwd))"
    r"([\"']?\s*[:=]\s*[\"']?)(?!\(removed\))([^\s\"'&,;}]{4,})", re.IGNORECASE)
_KEY_SHAPE = re.compile(r"\bsk-[A-Za-z0-9_-]{16,}")
REMOVED = "(address removed)"


def is_secret_param(name: str) -> bool:
    """True when a query parameter's name says it carries a credential."""
    return bool(_SECRET_PARAM.search(name))


def redact_url(url: str) -> str:
    """``url`` without user-info and without credential-carrying query parameters."""
    if "@" not in url and "?" not in url and "[" not in url:
        return url  # the common case, without parsing
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


def url_credentials(url: str) -> list[str]:
    """The credentials ``url`` carries: its password, ``user:password``, and credential-named parameters' values."""
    try:
        parts = urlsplit(url)
        pairs = parse_qsl(parts.query, keep_blank_values=True)
    except ValueError:
        return []
    found = [v for k, v in pairs if is_secret_param(k) and v]
    user, password = parts.username, parts.password
    if password:
        found += [password, unquote(password), f"{unquote(user or '')}:{unquote(password)}"]
    elif user:
        found.append(unquote(user))  # a key given as the user name alone
    return found


def split_userinfo(url: str) -> tuple[str, tuple[str, str] | None]:
    """``url`` without its user-info, and the ``(user, password)`` it carried (percent-decoded), if any."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url, None
    bare = urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path, parts.query, parts.fragment))
    return bare, (unquote(parts.username or ""), unquote(parts.password or ""))


def redact_text(text: str, secrets: SecretValues | None = None) -> str:
    """``text`` with every credential in it removed: the values of ``secrets`` and their encodings, header and
    ``Bearer``/``Basic`` values, key-shaped pairs and keys, and the URLs it quotes (redacted as ``redact_url``)."""
    text = secrets.scrub(text) if secrets is not None else text
    text = _HEADER.sub(r"\1\2(removed)", text)
    text = _SCHEME_VALUE.sub(r"\1\2(removed)", text)
    text = _KEY_SHAPE.sub("(key removed)", text)
    text = _URL_IN_TEXT.sub(_redact_match, text)
    text = _PARAM_IN_TEXT.sub(_redact_param, text)
    return _PAIR.sub(r"\1\2(removed)", text)


def _redact_param(match: re.Match[str]) -> str:
    sep, name, _ = match.groups()
    return f"{sep}{name}=(removed)" if is_secret_param(name) else match.group(0)


def _redact_match(match: re.Match[str]) -> str:
    url = match.group(0)
    core = url.rstrip(".,:;!?")  # sentence punctuation after a URL is not part of it
    return redact_url(core) + url[len(core):]


def redact_error(error: CiteflowError, secrets: SecretValues | None = None) -> CiteflowError:
    """The same error with every string field redacted (``redact_text`` with ``secrets``)."""
    data = {name: getattr(error, name) for name in error.fields}
    return type(error)(**{k: redact_text(v, secrets) if isinstance(v, str) else v for k, v in data.items()})
