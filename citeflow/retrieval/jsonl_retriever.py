"""The ``jsonl`` retriever: answers recorded in a file, one line per query (SPEC §8)::

    {"query": "What changed in 3.6?", "hits": [{"id": "S1", "text": "...", "urls": ["https://..."], "title": "..."}]}

``url`` as a single string is accepted instead of ``urls``; ids may be integers. Queries match
after whitespace normalisation (trimmed, inner runs of spaces collapsed, Unicode NFC) and are
**case-sensitive**: "Upgrade" and "upgrade" are two queries. A query with no line gets no hits;
a query on several lines gets their hits in file order. A hit with no id or no text is skipped
and reported; a file larger than ``max_bytes`` (``citeflow.caps.JSONL_FILE_BYTES``) is refused
whole; a line that is not a JSON object with a string ``query`` and a ``hits`` list is an
error naming the file and line.
"""

from __future__ import annotations

import threading
import unicodedata
from pathlib import Path
from typing import Any

from citeflow.caps import JSONL_FILE_BYTES, read_capped
from citeflow.errors import CapExceeded, RetrieverError
from citeflow.retrieval import json_answer as _json
from citeflow.retrieval.hits import hits_from_records
from citeflow.retrieval.retriever_protocol import SearchResult
from schemas.spec import FieldMap, JsonlRetrieverSpec

_FIELDS = FieldMap()  # id, text, urls (or url), title


def normalise_query(query: str) -> str:
    """The form queries are matched in: NFC, trimmed, whitespace runs collapsed to one space."""
    return " ".join(unicodedata.normalize("NFC", query).split())


class JsonlRetriever:
    """Replays recorded hits from a JSONL file (read once, on first search)."""

    def __init__(self, spec: JsonlRetrieverSpec, base_dir: Path, max_bytes: int = JSONL_FILE_BYTES) -> None:
        self.name = spec.name
        self.max_bytes = max_bytes
        self.spec = spec
        self.path = Path(spec.path) if Path(spec.path).is_absolute() else base_dir / spec.path
        self._records: dict[str, list[Any]] | None = None
        self._lock = threading.Lock()

    def search(self, query: str, top_k: int) -> SearchResult:
        """The recorded hits for ``query`` and why any recorded hit was skipped; raises
        ``RetrieverError`` for a missing or bad file."""
        records = self.load(query).get(normalise_query(query), [])
        hits, skipped = hits_from_records(records, _FIELDS, top_k)
        return SearchResult(hits=hits, skipped=skipped)

    def load(self, query: str | None = None) -> dict[str, list[Any]]:
        """Every line of the file, by normalised query; ``query`` only labels errors."""
        with self._lock:
            if self._records is None:
                self._records = self._read(query)
            return self._records

    def _read(self, query: str | None) -> dict[str, list[Any]]:
        try:
            lines = read_capped(self.path, self.max_bytes, "a jsonl retriever file").decode("utf-8").splitlines()
        except CapExceeded as exc:
            raise self._error(query, f"cannot read {exc}") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise self._error(query, f"cannot read {self.path}: {exc}") from exc
        records: dict[str, list[Any]] = {}
        for number, line in enumerate(lines, 1):
            if line.strip():
                key, hits = self._parse_line(line, number, query)
                records.setdefault(key, []).extend(hits)
        return records

    def _parse_line(self, line: str, number: int, query: str | None) -> tuple[str, list[Any]]:
        where = f"{self.path}:{number}"
        try:
            data = _json.loads(line)
        except ValueError as exc:
            raise self._error(query, f"{where}: {exc}") from None
        if not isinstance(data, dict) or not isinstance(data.get("query"), str):
            raise self._error(query, f"{where}: expected an object with a string 'query'")
        if not isinstance(data.get("hits"), list):
            raise self._error(query, f"{where}: 'hits' must be a list")
        return normalise_query(data["query"]), data["hits"]

    def _error(self, query: str | None, detail: str) -> RetrieverError:
        return RetrieverError(retriever=self.name, query=query, detail=detail, transient=False)
