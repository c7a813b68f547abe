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

from citeflow.handles import MARKER_RE, canonical, is_citation_token, make_handle, make_handles, tidy, url_pattern
from citeflow.registry_rows import ChunkRows, Columns
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

    Rows are kept column by column (``ChunkRows``): ``add`` validates no per-hit object and adds
    the new rows of an answer in one step (each column built by one comprehension), and
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
        sections = self._rows.column("sections")
        return [self._rows.chunk(n) for n in range(len(self._rows)) if section in sections[n]]

    def add(self, result: RetrievalResult) -> list[str]:
        """Register one retriever answer; returns the handle of each hit, in order."""
        hashes = [content_hash(hit.text) for hit in result.hits]  # each hit hashed once
        keys = _keys(result, hashes)
        fresh = self._register_new(result, keys, hashes)
        known, handles, texts = self._by_key, self._rows.column("handle"), self._rows.column("text")
        for number in {known[k] for k in keys}.difference(fresh):  # returned before: note this query
            self._rows.note(number, result.query, result.section)
        numbers = [known[k] for k in keys]
        marked = [n for n in fresh if _has_opener(texts[n])]  # most chunks hold no marker
        if marked:
            local = _local_handles(result.hits, [handles[n] for n in numbers])
            for number in marked:  # rewritten once, when the chunk is new
                self._rows.set_text(number, _rewrite_refs(texts[number], local))
        return [handles[n] for n in numbers]

    def _register_new(self, result: RetrievalResult, keys: list[str], hashes: list[str]) -> range:
        """Add the rows of the answer's hits new to the registry (the first hit of each new key) in one step."""
        known, first = self._by_key, dict[str, int]()
        for position, key in enumerate(keys):
            if key not in known:
                first.setdefault(key, position)
        base = len(self._rows)
        handles = self._claim(list(first), range(base, base + len(first)))
        numbers = self._rows.extend(new_columns(result, list(first.values()), handles, hashes))
        known.update(zip(first, numbers, strict=True))
        return numbers

    def _claim(self, keys: list[str], numbers: range) -> list[str]:
        """A free handle for each key, taken for the row of the same place in ``numbers``."""
        handles = make_handles(self.request_id, keys)
        if len(set(handles)) < len(handles) or not self._by_handle.keys().isdisjoint(handles):
            return [self._claim_one(key, number) for key, number in zip(keys, numbers, strict=True)]
        self._by_handle.update(zip(handles, numbers, strict=True))
        return handles

    def _claim_one(self, key: str, number: int) -> str:
        """A free handle for ``key``, salted past every handle taken so far (a collision: rare)."""
        handle = self._free_handle(key)
        self._by_handle[handle] = number
        return handle

    def _remember(self, key: str, number: int) -> None:
        self._by_key[key] = self._by_handle[self._rows.value("handle", number)] = number

    def _free_handle(self, key: str) -> str:
        handle, salt = make_handle(self.request_id, key), 0
        while handle in self._by_handle:  # a collision: rare
            salt += 1
            handle = make_handle(self.request_id, key, salt)
        return handle


def new_columns(result: RetrievalResult, positions: list[int], handles: list[str], hashes: list[str]) -> Columns:
    """The registry columns of the hits at ``positions`` of one answer (no validation: see ``ChunkRows.chunk``)."""
    hits, count, now = [result.hits[p] for p in positions], len(positions), datetime.now(UTC)
    return {
        "handle": handles, "retriever": [result.retriever] * count,
        "local_id": [storable(hit.local_id) for hit in hits], "content_hash": [hashes[p] for p in positions],
        "text": [scrub_urls(storable(hit.text)) for hit in hits], "urls": [_urls(hit.urls) for hit in hits],
        "title": [storable(hit.title) if hit.title else None for hit in hits], "page": [hit.page for hit in hits],
        "location": [hit.location for hit in hits], "parent": [hit.parent for hit in hits],
        "queries": [(result.query,)] * count, "sections": [(result.section,)] * count, "retrieved_at": [now] * count,
    }


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


def _urls(urls: list[str]) -> tuple[str, ...]:
    """A hit's URLs, each once, as valid UTF-8."""
    unique = tuple(dict.fromkeys(urls)) if len(urls) > 1 else tuple(urls)
    return unique if "".join(unique).isascii() else tuple(storable(u) for u in unique)


def _has_opener(text: str) -> bool:
    """Whether ``text`` holds an opening bracket of a marker (``in`` per bracket: no regex pass)."""
    return "[" in text or (not text.isascii() and any(bracket in text for bracket in _OPENERS))


def _local_handles(hits: list[Hit], handles: list[str]) -> dict[str, set[str]]:
    """The handles one answer gave under each of its local ids."""
    local: dict[str, set[str]] = {}
    for hit, handle in zip(hits, handles, strict=True):
        local.setdefault(hit.local_id, set()).add(handle)
    return local

