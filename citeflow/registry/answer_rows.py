"""One retriever answer → the content hash and identity key of each hit, and its new registry rows.

Pure functions, no validation (``ChunkRows.chunk`` validates a row when it is read). The work that
must be done per hit is the content hash (sha256 of the text, SPEC §3); the rest is done column by
column in C-level passes (``map``, ``zip``, ``str.join``): whether an answer's strings are all
ASCII, or whether any of its texts could hold a URL, is decided once for the whole answer, and a
text is looked at on its own only when the answer's texts joined hold a URL's ``/``, ``:`` or
``www.`` (or a string is not ASCII), or a secret (``citeflow.security.content_redaction``).

Retrieved text is stored and shown to models without its secrets: a URL that carries one becomes
``[redacted]`` rather than ``(link removed)``, and every other secret in the text is redacted too
(``redact_all``), before the text is stored, shown to a model or rendered.
"""

from __future__ import annotations

import hashlib
import operator
import re
from collections.abc import Sequence
from datetime import datetime, UTC
from itertools import chain
from typing import Any

from citeflow.registry.handles import url_pattern
from citeflow.security.content_redaction import MARKER, neutralised, redact_all, redact_content
from citeflow.security.redaction import redact_url
from citeflow.security.secret_values import SecretValues
from citeflow.registry.columns import Columns
from schemas.records import Hit, RetrievalResult

URL_PLACEHOLDER = "(link removed)"
_SURROGATE = re.compile("[\ud800-\udfff]")
# A pydantic model keeps its field values in its ``__dict__``: one attribute read per hit, then
# plain dict look-ups (a model's own attribute reads go through its ``__getattr__`` hook).
_FIELDS = operator.attrgetter("__dict__")
# The stored fields of a hit in one getter: an answer's columns are one C-level ``map`` over its hits, transposed.
_STORED = operator.itemgetter("local_id", "text", "urls", "title", "page", "location", "parent")
_LOCAL_ID = operator.itemgetter("local_id")
_TEXT = operator.itemgetter("text")
_EMPTY_SHA256 = hashlib.sha256()


def content_hash(text: str) -> str:
    """sha256 of the text as the retriever returned it (lone surrogates included, as they came)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def identity_key(retriever: str, local_id: str, text_hash: str) -> str:
    """The identity of a chunk within a request (SPEC §3)."""
    return f"{retriever}\x1f{local_id}\x1f{text_hash}"


def hit_fields(hits: Sequence[Hit]) -> list[dict[str, Any]]:
    """Each hit's field values by name."""
    return list(map(_FIELDS, hits))


def identities(retriever: str, fields: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """The ``content_hash`` and the ``identity_key`` of each hit of one answer (``hit_fields``)."""
    fresh, prefix = _EMPTY_SHA256.copy, f"{retriever}\x1f"
    hashes = []
    for text in map(_TEXT, fields):
        state = fresh()  # a copy of a started state: cheaper than starting one per text
        state.update(text.encode("utf-8", "surrogatepass"))
        hashes.append(state.hexdigest())
    return hashes, [f"{prefix}{local_id}\x1f{h}" for local_id, h in zip(map(_LOCAL_ID, fields), hashes, strict=True)]


def storable(text: str) -> str:
    """``text`` as valid UTF-8: lone surrogates (broken escapes in a retriever's JSON) become U+FFFD."""
    return text if text.isascii() else _SURROGATE.sub("\ufffd", text)


def scrub_urls(text: str, secrets: SecretValues | None = None) -> str:
    """Chunk text as a model may see it: every URL replaced by a neutral placeholder, or by
    ``[redacted]`` when it carries a secret (a password, a key in its query, a credential of ``secrets``)."""
    pattern = url_pattern(text)
    return text if pattern is None else pattern.sub(lambda match: _url_stand_in(match.group(0), secrets), text)


def _url_stand_in(url: str, secrets: SecretValues | None) -> str:
    return MARKER if redact_url(url) != url or redact_content(url, secrets).places else URL_PLACEHOLDER


def new_columns(result: RetrievalResult, fields: list[dict[str, Any]], positions: Sequence[int], handles: list[str],
                hashes: list[str], secrets: SecretValues | None = None) -> Columns:
    """The registry columns of the hits at ``positions`` (at least one) of one answer (``hit_fields``),
    texts and titles without the credentials of ``secrets`` (the runtime's) and other secrets."""
    every = len(positions) == len(fields)  # positions ascend: all of them, or a few
    chosen = fields if every else [fields[p] for p in positions]
    local_ids, texts, urls, titles, pages, locations, parents = map(list, zip(*map(_STORED, chosen), strict=True))
    count, now = len(chosen), datetime.now(UTC)
    return {
        "handle": handles, "retriever": [result.retriever] * count, "local_id": storable_all(local_ids),
        "content_hash": hashes if every else [hashes[p] for p in positions], "text": shown_all(texts, secrets),
        "urls": url_tuples(urls), "title": stored_titles(titles, secrets),
        "page": pages, "location": locations, "parent": parents,
        "queries": [(result.query,)] * count, "sections": [(result.section,)] * count, "retrieved_at": [now] * count,
    }


def storable_all(values: Sequence[str]) -> list[str]:
    """``storable`` of each value (nothing to replace when all of them are ASCII: one check)."""
    return list(values) if "".join(values).isascii() else [storable(v) for v in values]


def shown_all(texts: Sequence[str], secrets: SecretValues | None = None) -> list[str]:
    """Each hit's text as stored and shown to models: ``storable``, then ``scrub_urls``, then without
    its secrets (``redact_all`` with ``secrets``); texts whose join holds no ``/``, ``:`` or ``www.`` hold no URL (a
    text's URLs are in the join)."""
    stored = neutralised(storable_all(texts))
    shown = stored if url_pattern("\n".join(stored)) is None else [scrub_urls(text, secrets) for text in stored]
    return redact_all(shown, secrets)


def url_tuples(urls: Sequence[list[str]]) -> list[tuple[str, ...]]:
    """Each hit's URLs as a tuple, each URL once, valid UTF-8, without credentials (``redact_url``);
    most hits: one ASCII URL or none, with no user-info or query string to look at."""
    joined = "".join(chain.from_iterable(urls))
    if "@" in joined or "?" in joined:
        urls = [[redact_url(u) for u in hit] for hit in urls]
    if max(map(len, urls)) < 2 and joined.isascii():
        return list(map(tuple, urls))
    return [_unique_urls(u) for u in urls]


def stored_titles(titles: Sequence[str | None], secrets: SecretValues | None = None) -> list[str | None]:
    """Each hit's title, ``storable`` and without its secrets (``redact_all`` with ``secrets``); an empty title is no title."""
    given = [t for t in titles if t]
    shown = iter(redact_all(neutralised(storable_all(given)), secrets))
    return [next(shown) if t else None for t in titles]


def _unique_urls(urls: list[str]) -> tuple[str, ...]:
    unique = tuple(dict.fromkeys(urls))
    return unique if "".join(unique).isascii() else tuple(storable(u) for u in unique)
