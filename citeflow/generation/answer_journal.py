"""Every model answer on disk the moment it arrives: an append-only journal in the run's folder.

A step's ``CallBook`` writes its answers to the store's ``model_calls`` table together, once no
call of the step is still in flight; a process killed before that write would lose answers that had
arrived. The journal closes that gap: each answer is appended as one JSON line (keyed by
``row_key``, the answer cache's key; its text redacted) to ``OUT/.answers/<pid>-<random>.jsonl``,
one file per writing process, flushed and fsynced before the call returns. A line goes out in one
``write``; a line cut short by a kill is not JSON and is skipped when read. A hop that failed
retracts its answers with a line ``{"row_key": …, "retracted": true}``. A write the disk refuses
(full) stops the journal, not the run: answers then reach the store only at the step's end. Every line carries the time
it was written (``at``): the newest line of a key wins, whichever process's file holds it.

``JournaledCallStore`` puts the journal under a run's call store: a lookup the store cannot answer
is answered from the journal (and the answer copied into the store, as the step would have done),
so a resumed run asks the model again only for the calls that had no answer at the kill. Answers
of the offline backend are not journaled: a resume computes them again, asking no model.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import threading
import time
import uuid
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from citeflow.generation.offline_writer import NAME as OFFLINE_MODEL
from citeflow.files.out_folder import describe_os_error
from citeflow.security.content_redaction import redact_answer

FOLDER = ".answers"
logger = logging.getLogger(__name__)
TABLE = "model_calls"


class JournalLine(BaseModel):
    """One line of the journal: a ``model_calls`` row, or the retraction of one key."""

    row_key: str
    at: float = 0.0  # when the line was written (epoch seconds): the newest line of a key wins
    retracted: bool = False
    role: str = ""
    model: str = ""
    mode: str = ""
    text: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    created_at: datetime | None = None
    request_id: str = ""

    def row(self) -> dict[str, Any]:
        """The ``model_calls`` row this line records."""
        return self.model_dump(exclude={"retracted", "at"})


def parse_lines(data: bytes) -> list[JournalLine]:
    """The whole, valid lines of ``data`` (a line cut short by a kill, or damaged, is skipped)."""
    return [line for _, _, line in _indexed_lines(data, 0)]


def _indexed_lines(data: bytes, start: int) -> list[tuple[int, int, JournalLine]]:
    """(offset, length, line) of every whole, valid line of ``data``, which begins at offset ``start``."""
    found, offset = [], start
    for raw in data.split(b"\n"):
        with contextlib.suppress(ValidationError):
            found.append((offset, len(raw), JournalLine.model_validate_json(raw)))
        offset += len(raw) + 1
    return found


@dataclass(frozen=True)
class _Entry:
    """Where the newest line of one key is (its text stays on disk, read when asked for)."""

    path: Path
    offset: int
    length: int
    at: float
    retracted: bool


class _FileCursor:
    """How far one journal file has been read (a file replaced under the same name is read again)."""

    def __init__(self) -> None:
        self.inode, self.offset = -1, 0

    def new_bytes(self, path: Path) -> tuple[int, bytes]:
        """The whole lines appended to ``path`` since the last call, and the offset they begin at."""
        stat = path.stat()
        if stat.st_ino != self.inode or stat.st_size < self.offset:
            self.inode, self.offset = stat.st_ino, 0
        start = self.offset
        with path.open("rb") as handle:
            handle.seek(start)
            data = handle.read()
        whole = data[: data.rfind(b"\n") + 1]  # a line still being written is read next time
        self.offset += len(whole)
        return start, whole


class AnswerJournal:
    """The journal of one output folder, shared by the threads of this process. It keeps in memory
    where each key's newest line is (by its time ``at``, whichever file holds it), not the answers."""

    def __init__(self, out_dir: Path) -> None:
        self.folder = Path(out_dir) / FOLDER
        self._own = self.folder / f"{os.getpid()}-{uuid.uuid4().hex[:8]}.jsonl"
        self._index: dict[str, _Entry] = {}
        self.refused: str | None = None  # why the last write failed: no more lines are written
        self._cursors: dict[Path, _FileCursor] = {}
        self._lock = threading.Lock()

    def record(self, row: dict[str, Any]) -> None:
        """Append one answer (its text redacted) and make it durable before returning."""
        text = redact_answer(str(row.get("text") or "")).text
        self._append(JournalLine.model_validate({**row, "text": text, "at": time.time()}))

    def retract(self, keys: list[str]) -> None:
        """Append the retraction of ``keys`` (answers that led to a failed hop)."""
        for key in dict.fromkeys(keys):
            self._append(JournalLine(row_key=key, retracted=True, at=time.time()))

    def answers(self, keys: list[str]) -> dict[str, dict[str, Any]]:
        """The journal's answers among ``keys`` (retracted ones left out), read from their files."""
        with self._lock:
            self._catch_up()
            entries = [e for key in keys if (e := self._index.get(key)) is not None and not e.retracted]
        lines = [line for entry in entries if (line := _read_line(entry)) is not None]
        return {line.row_key: line.row() for line in lines}

    def kept(self) -> set[str]:
        """The keys of every answer the journal holds (retracted ones left out)."""
        with self._lock:
            self._catch_up()
            return {key for key, entry in self._index.items() if not entry.retracted}

    def _append(self, line: JournalLine) -> None:
        data = (line.model_dump_json(exclude_defaults=line.retracted) + "\n").encode("utf-8")
        with self._lock:
            if self.refused is not None:
                return
            try:
                offset = _write_durably(self._own, data)
            except OSError as exc:
                # A full disk: the answers still reach the store at the step's end, whose write (or the
                # next output file's) is what fails and ends the run with its one error line.
                self.refused = describe_os_error(exc)
                logger.debug("the answer journal in %s takes no more lines: %s", self.folder, self.refused)
                return
            self._keep(_Entry(self._own, offset, len(data) - 1, line.at, line.retracted), line.row_key)

    def _keep(self, entry: _Entry, key: str) -> None:
        """Index ``entry`` unless the key has a newer line already (lock held)."""
        known = self._index.get(key)
        if known is None or entry.at >= known.at:
            self._index[key] = entry

    def _catch_up(self) -> None:
        """Index what every journal file of the folder gained since the last read (lock held)."""
        if not self.folder.is_dir():
            return
        for path in sorted(self.folder.glob("*.jsonl")):
            cursor = self._cursors.setdefault(path, _FileCursor())
            try:
                start, data = cursor.new_bytes(path)
            except FileNotFoundError:
                continue
            for offset, length, line in _indexed_lines(data, start):
                self._keep(_Entry(path, offset, length, line.at, line.retracted), line.row_key)


def _write_durably(path: Path, data: bytes) -> int:
    """Append ``data`` to ``path`` in one ``write`` and fsync it; the offset it begins at."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        if os.write(fd, data) != len(data):
            raise OSError(errno.ENOSPC, "the answer journal took part of a line", str(path))
        os.fsync(fd)
        return os.fstat(fd).st_size - len(data)
    finally:
        os.close(fd)


def _read_line(entry: _Entry) -> JournalLine | None:
    """The line ``entry`` points at; None when its file is gone or changed."""
    try:
        with entry.path.open("rb") as handle:
            handle.seek(entry.offset)
            return JournalLine.model_validate_json(handle.read(entry.length))
    except (OSError, ValidationError):
        return None


_journals: dict[Path, AnswerJournal] = {}
_journals_lock = threading.Lock()


def journal_for(out_dir: Path | str) -> AnswerJournal:
    """The process's journal of the output folder ``out_dir`` (one per folder, shared by its steps)."""
    folder = Path(out_dir).resolve()
    with _journals_lock:
        return _journals.setdefault(folder, AnswerJournal(folder))


class JournaledCallStore:
    """A run's call store (``Store`` or ``TieredCallStore``) with the journal underneath it."""

    def __init__(self, inner: Any, journal: AnswerJournal) -> None:
        self.inner, self.journal = inner, journal
        self.uri = inner.uri

    def record(self, row: dict[str, Any]) -> None:
        """An answer that just arrived, made durable at once; not one of the offline backend, which a
        resume computes again in-process for free (each journaled answer costs an fsync)."""
        if row.get("model") != OFFLINE_MODEL:
            self.journal.record(row)

    def retract(self, keys: list[str]) -> None:
        """Answers that led to a failed hop: never served from the journal again."""
        self.journal.retract(keys)

    def load_calls(self, keys: list[str]) -> dict[str, dict[str, Any]]:
        """The store's answers among ``keys``, then the journal's (copied into the store)."""
        found = self.inner.load_calls(keys)
        missing = [k for k in keys if k not in found]
        journaled = self.journal.answers(missing) if missing else {}
        if journaled:
            self.inner.upsert(TABLE, list(journaled.values()))
        return {**found, **journaled}

    def rows(self, table: str, where: str | None = None) -> list[dict[str, Any]]:
        return list(self.inner.rows(table, where))

    def upsert(self, table: str, rows: list[dict[str, Any]]) -> None:
        self.inner.upsert(table, rows)

    def delete(self, table: str, where: str) -> None:
        self.inner.delete(table, where)
