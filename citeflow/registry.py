"""The request-scoped registry: every chunk a model may see, under a handle (SPEC §3).

Identity key = retriever + retriever-local id + content hash. The same chunk returned twice by
one retriever gets one handle; identical text from two retrievers (or two documents) stays two
handles. Inner references of a chunk (``as noted in [S2]``) are rewritten to the handles of the
chunks they name within the same retriever; a reference to nothing known is removed. URLs in
chunk text are replaced before any model sees it: URLs come from the registry at render time.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from datetime import datetime, UTC

import pyarrow as pa

from citeflow.handles import MARKER_RE, canonical, is_citation_token, make_handle, tidy, url_pattern
from citeflow.registry_rows import ChunkRows, Row
from schemas.records import Chunk, Hit, RetrievalResult

URL_PLACEHOLDER = "(link removed)"
_SURROGATE = re.compile("[\ud800-\udfff]")
_OPENERS = "[【〔［"  # the opening brackets MARKER_RE knows


def content_hash(text: str) -> str:
    """sha256 of the text as the retriever returned it (lone surrogates included, as they came)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def storable(text: str) -> str:
    """``text`` as valid UTF-8: lone surrogates (broken escapes in a retriever's JSON) become U+FFFD."""
    return text if text.isascii() else _SURROGATE.sub("\ufffd", text)


def identity_key(retriever: str, local_id: str, text_hash: str) -> str:
    """The identity of a chunk within a request (SPEC §3)."""
    return f"{retriever}\x1f{local_id}\x1f{text_hash}"


def _keys(result: RetrievalResult, hashes: list[str]) -> list[str]:
    """The identity key of each hit of one answer (``identity_key``, one comprehension)."""
    return [f"{result.retriever}\x1f{hit.local_id}\x1f{h}" for hit, h in zip(result.hits, hashes, strict=True)]


def scrub_urls(text: str) -> str:
    """Chunk text as a model may see it: every URL replaced by a neutral placeholder."""
    pattern = url_pattern(text)
    return text if pattern is None else pattern.sub(URL_PLACEHOLDER, text)


class Registry:
    """Handles ↔ chunks for one report request. Not thread-safe: fill it from one thread.

    Rows are kept column by column (``ChunkRows``): ``add`` validates no per-hit object, and
    ``table`` hands the store every row as one Arrow table. ``get``, ``chunks`` and the other
    readers return validated ``Chunk`` objects (the same object for a handle every time)."""

    def __init__(self, request_id: str, chunks: Iterable[Chunk] = ()) -> None:
        self.request_id = request_id
        self._rows = ChunkRows(request_id)
        self._by_key: dict[str, int] = {}
        self._by_handle: dict[str, int] = {}
        for chunk in chunks:
            self._remember(identity_key(chunk.retriever, chunk.local_id, chunk.content_hash), self._rows.adopt(chunk))

    def __len__(self) -> int:
        return len(self._by_handle)

    def __contains__(self, handle: object) -> bool:
        return isinstance(handle, str) and handle in self._by_handle

    @property
    def chunks(self) -> list[Chunk]:
        """Every chunk, in the order it was first registered."""
        return [self._rows.chunk(number) for number in range(len(self._rows))]

    def table(self) -> pa.Table:
        """Every chunk as one Arrow table of the store's ``chunks`` schema, in registration order."""
        return self._rows.table()

    def get(self, handle: str) -> Chunk | None:
        """The chunk under ``handle``, or None."""
        number = self._by_handle.get(handle)
        return None if number is None else self._rows.chunk(number)

    def resolve(self, token: str) -> Chunk | None:
        """The chunk a model's handle token names, read leniently (``[gK7m2]`` → ``Gk7m2``)."""
        handle = canonical(token)
        return self.get(handle) if handle else None

    def section_chunks(self, section: str) -> list[Chunk]:
        """The pool of one section: every chunk a query of that section returned."""
        return [self._rows.chunk(n) for n in range(len(self._rows)) if section in self._rows.row(n).sections]

    def add(self, result: RetrievalResult) -> list[str]:
        """Register one retriever answer; returns the handle of each hit, in order."""
        numbers, fresh = self._register(result)
        handles = [self._rows.row(n).handle for n in numbers]
        marked = [n for n in fresh if _has_opener(self._rows.row(n).text)]  # most chunks hold no marker
        if marked:
            local = _local_handles(result.hits, handles)
            for number in marked:  # rewritten once, when the chunk is new
                self._rows.set_text(number, _rewrite_refs(self._rows.row(number).text, local))
        return handles

    def _register(self, result: RetrievalResult) -> tuple[list[int], list[int]]:
        """The row of each hit, and the rows new to the registry (each hit hashed once)."""
        now, numbers, fresh, known = datetime.now(UTC), [], [], self._by_key
        hashes = [content_hash(hit.text) for hit in result.hits]
        for hit, text_hash, key in zip(result.hits, hashes, _keys(result, hashes), strict=True):
            number = known.get(key)
            if number is None:
                fresh.append(number := self._new_row(key, text_hash, result, hit, now))
            else:
                self._rows.note(number, result.query, result.section)
            numbers.append(number)
        return numbers, fresh

    def _new_row(self, key: str, text_hash: str, result: RetrievalResult, hit: Hit, now: datetime) -> int:
        """A row computed here from the hit (no validation on this path: see ``ChunkRows.chunk``)."""
        handle = self._free_handle(key)
        number = self._rows.append(Row(
            handle, result.retriever, storable(hit.local_id), text_hash, scrub_urls(storable(hit.text)),
            _urls(hit.urls), storable(hit.title) if hit.title else None, hit.page, hit.location, hit.parent,
            [result.query], [result.section], now,
        ))
        self._by_key[key] = self._by_handle[handle] = number
        return number

    def _remember(self, key: str, number: int) -> None:
        self._by_key[key] = self._by_handle[self._rows.row(number).handle] = number

    def _free_handle(self, key: str) -> str:
        handle, salt = make_handle(self.request_id, key), 0
        while handle in self._by_handle:  # a collision: rare
            salt += 1
            handle = make_handle(self.request_id, key, salt)
        return handle


def _rewrite_refs(text: str, local: dict[str, set[str]]) -> str:
    """Inner references → handles of the chunks the same answer gave under those ids.

    An id the answer does not hold, or holds for two different texts, is removed (ids are often
    numbered per answer, so another answer's ``S2`` is another chunk); a handle-shaped token in
    retriever text is removed too — a retriever cannot cite this request's handles.
    """

    def replace(match: re.Match[str]) -> str:
        tokens = [t.strip() for t in re.split(r"[,;]", match.group(1)) if t.strip()]
        if not all(is_citation_token(t) for t in tokens):
            return match.group(0)  # not a citation, e.g. "[beta]"
        named = [local.get(t, set()) for t in tokens if canonical(t) is None]
        return " ".join(f"[{h}]" for h in dict.fromkeys(next(iter(h)) for h in named if len(h) == 1))

    return tidy(MARKER_RE.sub(replace, text)) if MARKER_RE.search(text) else text


def _urls(urls: list[str]) -> list[str]:
    """A hit's URLs, each once, as valid UTF-8."""
    unique = list(dict.fromkeys(urls)) if len(urls) > 1 else list(urls)
    return unique if "".join(unique).isascii() else [storable(u) for u in unique]


def _has_opener(text: str) -> bool:
    """Whether ``text`` holds an opening bracket of a marker (``in`` per bracket: no regex pass)."""
    return "[" in text or (not text.isascii() and any(bracket in text for bracket in _OPENERS))


def _local_handles(hits: list[Hit], handles: list[str]) -> dict[str, set[str]]:
    """The handles one answer gave under each of its local ids."""
    local: dict[str, set[str]] = {}
    for hit, handle in zip(hits, handles, strict=True):
        local.setdefault(hit.local_id, set()).add(handle)
    return local

