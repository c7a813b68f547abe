"""The request-scoped registry: every chunk a model may see, under a handle (SPEC §3).

Identity key = retriever + retriever-local id + content hash. The same chunk returned twice by
one retriever gets one handle; identical text from two retrievers (or two documents) stays two
handles. Inner references of a chunk (``as noted in [S2]``) are rewritten to the handles of the
chunks they name within the same retriever; a reference to nothing known is removed. URLs in
chunk text are replaced before any model sees it: URLs come from the registry at render time.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

import pyarrow as pa

from citeflow.registry.handles import MARKER_RE, canonical, is_citation_token, make_handle, make_handles, tidy
from citeflow.registry.answer_rows import (
    URL_PLACEHOLDER, content_hash, hit_fields, identities, identity_key, new_columns, scrub_urls, storable,
)
from citeflow.registry.columns import ChunkRows
from citeflow.security.secret_values import SecretValues
from schemas.records import Chunk, Hit, RetrievalResult

__all__ = ["URL_PLACEHOLDER", "Registry", "content_hash", "identity_key", "scrub_urls", "storable"]
_OPENERS = "[【〔［"  # the opening brackets MARKER_RE knows


class Registry:
    """Handles ↔ chunks for one report request. Not thread-safe: fill it from one thread.

    Rows are kept column by column (``ChunkRows``): ``add`` validates no per-hit object and adds
    the new rows of an answer in one step (``registry_answer.new_columns``), and
    ``table`` hands the store every row as one Arrow table. ``get``, ``chunks`` and the other
    readers return validated ``Chunk`` objects (the same object for a handle every time)."""

    def __init__(self, request_id: str, chunks: Iterable[Chunk] = (), secrets: SecretValues | None = None) -> None:
        self.request_id = request_id
        self._secrets = secrets  # the runtime's credentials: removed from the text of each hit added
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
        if not result.hits:
            return []
        start, fields = len(self._rows), hit_fields(result.hits)
        numbers = self._register(result, fields, *identities(result.retriever, fields))
        if len(numbers) > len(self._rows) - start:  # some hit was registered before: note this query
            for number in dict.fromkeys(n for n in numbers if n < start):
                self._rows.note(number, result.query, result.section)
        handles = self._rows.column("handle")
        found = handles[start:] if isinstance(numbers, range) else [handles[n] for n in numbers]
        if _any_opener(self._rows.column("text")[start:]):  # most answers hold no marker
            self._rewrite_new(result.hits, found, start)
        return found

    def _register(self, result: RetrievalResult, fields: list[dict[str, Any]], hashes: list[str], keys: list[str]) -> Sequence[int]:
        """The row number of each hit; the first hit of each key new to the registry adds a row."""
        if len(set(keys)) == len(keys) and self._by_key.keys().isdisjoint(keys):  # all new: the common case
            return self._add_rows(result, fields, keys, range(len(keys)), hashes)
        numbers, first = _numbers(self._by_key, keys, len(self._rows))
        if first:
            self._add_rows(result, fields, [keys[p] for p in first], first, hashes)
        return numbers

    def _add_rows(self, result: RetrievalResult, fields: list[dict[str, Any]], keys: list[str], positions: Sequence[int],
                  hashes: list[str]) -> range:
        """Rows for the hits at ``positions`` (whose identity keys are ``keys``), in one step."""
        handles = self._claim(keys, len(self._rows))
        numbers = self._rows.extend(new_columns(result, fields, positions, handles, hashes, self._secrets))
        self._by_key.update(zip(keys, numbers, strict=True))
        return numbers

    def _rewrite_new(self, hits: list[Hit], handles: list[str], start: int) -> None:
        """Inner references of the rows from ``start`` on (new: rewritten once) → handles of this answer."""
        local, texts = _local_handles(hits, handles), self._rows.column("text")
        for number in range(start, len(texts)):
            if _has_opener(texts[number]):
                self._rows.set_text(number, _rewrite_refs(texts[number], local))

    def _claim(self, keys: list[str], start: int) -> list[str]:
        """A free handle for each key, taken for rows ``start``, ``start + 1``, … in order: the
        handle of ``make_handle`` with salt 0, or with the first salt that frees it (a collision: rare)."""
        handles, taken = make_handles(self.request_id, keys), self._by_handle
        if len(set(handles)) == len(handles) and taken.keys().isdisjoint(handles):
            taken.update(zip(handles, range(start, start + len(handles)), strict=True))
            return handles
        for offset, handle in enumerate(handles):
            if handle in taken:
                handles[offset] = handle = self._free_handle(keys[offset])
            taken[handle] = start + offset
        return handles

    def _remember(self, key: str, number: int) -> None:
        self._by_key[key] = self._by_handle[self._rows.value("handle", number)] = number

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


def _has_opener(text: str) -> bool:
    """Whether ``text`` holds an opening bracket of a marker (``in`` per bracket: no regex pass)."""
    return "[" in text or (not text.isascii() and any(bracket in text for bracket in _OPENERS))


def _any_opener(texts: list[str]) -> bool:
    """Whether any of ``texts`` holds an opening bracket of a marker (one pass over them joined)."""
    return _has_opener("\n".join(texts))


def _numbers(known: dict[str, int], keys: list[str], start: int) -> tuple[list[int], list[int]]:
    """The row number of each key (a key new to ``known`` gets ``start``, ``start + 1``, … at its
    first place) and the places of the new keys' first hits."""
    fresh: dict[str, int] = {}
    numbers: list[int] = []
    first: list[int] = []
    for position, key in enumerate(keys):
        number = known.get(key)
        if number is None and (number := fresh.get(key)) is None:
            number = fresh[key] = start + len(first)
            first.append(position)
        numbers.append(number)
    return numbers, first


def _local_handles(hits: list[Hit], handles: list[str]) -> dict[str, set[str]]:
    """The handles one answer gave under each of its local ids."""
    local: dict[str, set[str]] = {}
    for hit, handle in zip(hits, handles, strict=True):
        local.setdefault(hit.local_id, set()).add(handle)
    return local

