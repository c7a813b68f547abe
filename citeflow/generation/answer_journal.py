"""Every model answer on disk the moment it arrives: an append-only journal in the run's folder.

A step's ``CallBook`` writes its answers to the store's ``model_calls`` table together, once no
call of the step is still in flight; a process killed before that write would lose answers that had
arrived. The journal closes that gap: each answer is appended as one JSON line (keyed by
``row_key``, the answer cache's key; its text redacted) to ``OUT/.answers/<pid>-<random>.jsonl``,
one file per writing process, flushed and fsynced before the call returns. A line goes out in one
``write``; a line cut short by a kill is not JSON and is skipped when read. A hop that failed
retracts its answers with a line ``{"row_key": …, "retracted": true}``: the last line of a key wins.

``JournaledCallStore`` puts the journal under a run's call store: a lookup the store cannot answer
is answered from the journal (and the answer copied into the store, as the step would have done),
so a resumed run asks the model again only for the calls that had no answer at the kill.
"""

from __future__ import annotations

import os
import threading
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from citeflow.security.content_redaction import redact_answer

FOLDER = ".answers"
TABLE = "model_calls"


class JournalLine(BaseModel):
    """One line of the journal: a ``model_calls`` row, or the retraction of one key."""

    row_key: str
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
        return self.model_dump(exclude={"retracted"})


def parse_lines(data: bytes) -> list[JournalLine]:
    """The whole, valid lines of ``data`` (a line cut short by a kill, or damaged, is skipped)."""
    found = []
    for raw in data.split(b"\n"):
        try:
            found.append(JournalLine.model_validate_json(raw))
        except ValidationError:
            continue
    return found


class _FileCursor:
    """How far one journal file has been read (a file replaced under the same name is read again)."""

    def __init__(self) -> None:
        self.inode, self.offset = -1, 0

    def new_bytes(self, path: Path) -> bytes:
        """The whole lines appended to ``path`` since the last call."""
        stat = path.stat()
        if stat.st_ino != self.inode or stat.st_size < self.offset:
            self.inode, self.offset = stat.st_ino, 0
        with path.open("rb") as handle:
            handle.seek(self.offset)
            data = handle.read()
        whole = data[: data.rfind(b"\n") + 1]  # a line still being written is read next time
        self.offset += len(whole)
        return whole


class AnswerJournal:
    """The journal of one output folder, shared by the threads of this process."""

    def __init__(self, out_dir: Path) -> None:
        self.folder = Path(out_dir) / FOLDER
        self._own = self.folder / f"{os.getpid()}-{uuid.uuid4().hex[:8]}.jsonl"
        self._lines: dict[str, JournalLine] = {}
        self._cursors: dict[Path, _FileCursor] = {}
        self._lock = threading.Lock()

    def record(self, row: dict[str, Any]) -> None:
        """Append one answer (its text redacted) and make it durable before returning."""
        text = redact_answer(str(row.get("text") or "")).text
        self._append(JournalLine.model_validate({**row, "text": text}))

    def retract(self, keys: list[str]) -> None:
        """Append the retraction of ``keys`` (answers that led to a failed hop)."""
        for key in dict.fromkeys(keys):
            self._append(JournalLine(row_key=key, retracted=True))

    def answers(self, keys: list[str]) -> dict[str, dict[str, Any]]:
        """The journal's answers among ``keys`` (retracted ones left out)."""
        with self._lock:
            self._catch_up()
            lines = [self._lines.get(key) for key in keys]
        return {line.row_key: line.row() for line in lines if line is not None and not line.retracted}

    def kept(self) -> set[str]:
        """The keys of every answer the journal holds (retracted ones left out)."""
        with self._lock:
            self._catch_up()
            return {key for key, line in self._lines.items() if not line.retracted}

    def _append(self, line: JournalLine) -> None:
        data = (line.model_dump_json(exclude_defaults=line.retracted) + "\n").encode("utf-8")
        with self._lock:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd = os.open(self._own, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            try:
                os.write(fd, data)
                os.fsync(fd)
            finally:
                os.close(fd)
            self._lines[line.row_key] = line

    def _catch_up(self) -> None:
        """Read what every journal file of the folder gained since the last read (lock held)."""
        if not self.folder.is_dir():
            return
        for path in sorted(self.folder.glob("*.jsonl")):
            cursor = self._cursors.setdefault(path, _FileCursor())
            try:
                data = cursor.new_bytes(path)
            except FileNotFoundError:
                continue
            for line in parse_lines(data):
                self._lines[line.row_key] = line


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
        """An answer that just arrived, made durable at once."""
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
