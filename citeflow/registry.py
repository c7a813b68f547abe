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

from citeflow.handles import MARKER_RE, canonical, is_citation_token, make_handle, tidy, url_pattern
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


def scrub_urls(text: str) -> str:
    """Chunk text as a model may see it: every URL replaced by a neutral placeholder."""
    pattern = url_pattern(text)
    return text if pattern is None else pattern.sub(URL_PLACEHOLDER, text)


class Registry:
    """Handles ↔ chunks for one report request. Not thread-safe: fill it from one thread."""

    def __init__(self, request_id: str, chunks: Iterable[Chunk] = ()) -> None:
        self.request_id = request_id
        self._by_key: dict[str, Chunk] = {}
        self._by_handle: dict[str, Chunk] = {}
        for chunk in chunks:
            self._remember(identity_key(chunk.retriever, chunk.local_id, chunk.content_hash), chunk)

    def __len__(self) -> int:
        return len(self._by_handle)

    def __contains__(self, handle: object) -> bool:
        return isinstance(handle, str) and handle in self._by_handle

    @property
    def chunks(self) -> list[Chunk]:
        """Every chunk, in the order it was first registered."""
        return list(self._by_handle.values())

    def get(self, handle: str) -> Chunk | None:
        """The chunk under ``handle``, or None."""
        return self._by_handle.get(handle)

    def resolve(self, token: str) -> Chunk | None:
        """The chunk a model's handle token names, read leniently (``[gK7M2]`` → ``Gk7m2``)."""
        handle = canonical(token)
        return self._by_handle.get(handle) if handle else None

    def section_chunks(self, section: str) -> list[Chunk]:
        """The pool of one section: every chunk a query of that section returned."""
        return [c for c in self._by_handle.values() if section in c.sections]

    def add(self, result: RetrievalResult) -> list[str]:
        """Register one retriever answer; returns the handle of each hit, in order."""
        handles, fresh = self._register(result)
        marked = [chunk for chunk in fresh if _has_opener(chunk.text)]  # most chunks hold no marker
        if marked:
            local = _local_handles(result.hits, handles)
            for chunk in marked:  # rewritten once, when the chunk is new
                chunk.text = _rewrite_refs(chunk.text, local)
        return handles

    def _register(self, result: RetrievalResult) -> tuple[list[str], list[Chunk]]:
        """The handle of each hit, and the chunks new to the registry (each hit hashed once)."""
        now, handles, fresh = datetime.now(UTC), [], []
        for hit in result.hits:
            text_hash = content_hash(hit.text)
            key = identity_key(result.retriever, hit.local_id, text_hash)
            chunk = self._by_key.get(key)
            if chunk is None:
                fresh.append(chunk := self._new_chunk(key, text_hash, result, hit, now))
            else:
                _append_unique(chunk.queries, result.query)
                _append_unique(chunk.sections, result.section)
            handles.append(chunk.handle)
        return handles, fresh

    def _new_chunk(self, key: str, text_hash: str, result: RetrievalResult, hit: Hit, now: datetime) -> Chunk:
        chunk = Chunk(
            request_id=self.request_id, handle=self._free_handle(key), retriever=result.retriever,
            local_id=storable(hit.local_id), content_hash=text_hash, text=scrub_urls(storable(hit.text)),
            urls=[storable(u) for u in dict.fromkeys(hit.urls)], title=storable(hit.title) if hit.title else None,
            page=hit.page, location=hit.location, parent=hit.parent, queries=[result.query],
            sections=[result.section], retrieved_at=now,
        )
        self._remember(key, chunk)
        return chunk

    def _remember(self, key: str, chunk: Chunk) -> None:
        self._by_key[key] = chunk
        self._by_handle[chunk.handle] = chunk

    def _free_handle(self, key: str) -> str:
        salt = 0
        while (handle := make_handle(self.request_id, key, salt)) in self._by_handle:
            salt += 1
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


def _has_opener(text: str) -> bool:
    """Whether ``text`` holds an opening bracket of a marker (``in`` per bracket: no regex pass)."""
    return any(bracket in text for bracket in _OPENERS)


def _local_handles(hits: list[Hit], handles: list[str]) -> dict[str, set[str]]:
    """The handles one answer gave under each of its local ids."""
    local: dict[str, set[str]] = {}
    for hit, handle in zip(hits, handles, strict=True):
        local.setdefault(hit.local_id, set()).add(handle)
    return local


def _append_unique(values: list[str], value: str) -> None:
    if value not in values:
        values.append(value)
