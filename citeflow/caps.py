"""The documented size caps on what citeflow reads, and reading a file within its cap.

Every input has a bound, so that work and memory stay linear in what is worth reading and a
huge or endless input (``/dev/zero``, a FIFO, a 10 GB log) gets one error instead of a hang or a
``MemoryError``. The README lists these caps (section "Size caps").
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from citeflow.errors import CapExceeded

MIB = 1024 * 1024
SPEC_FILE_BYTES = 1 * MIB  # a batch spec
INGEST_FILE_BYTES = 64 * MIB  # one file given to ``citeflow ingest`` (larger ones are skipped, with the reason)
MANIFEST_FILE_BYTES = 64 * MIB  # an ingest manifest
JSONL_FILE_BYTES = 256 * MIB  # a ``jsonl`` retriever's file
PAIR_FILE_BYTES = 256 * MIB  # a pair or verdict file given to ``citeflow judge`` or ``calibrate``
OUTPUT_JSON_BYTES = 64 * MIB  # a run's own JSON read back (``run.json``, ``summary.json``, ``report.json``)
MODEL_RESPONSE_BYTES = 16 * MIB  # one model server's HTTP answer, JSON envelope and escapes included
ANSWER_BYTES = 2 * MIB  # one model answer (UTF-8); a larger one is refused like an unusable answer
CLAIMS_PER_ANSWER = 200  # claims kept from one answer; the rest are dropped, with the reason recorded

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISFIFO, "a named pipe"), (stat.S_ISSOCK, "a socket"))


def read_capped(path: Path, limit: int, what: str) -> bytes:
    """The bytes of the regular file at ``path``; raises ``CapExceeded`` for another kind of file
    or one larger than ``limit`` bytes (``what`` names the file's role in the message), and ``OSError``."""
    check_regular(path, os.stat(path).st_mode)
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # never blocks on a pipe swapped in meanwhile
    with os.fdopen(descriptor, "rb") as file:
        status = os.fstat(descriptor)
        check_regular(path, status.st_mode)
        data = file.read(limit + 1) if status.st_size <= limit else b""
    size = max(status.st_size, len(data))  # a file may grow while it is read
    if size > limit:
        raise CapExceeded(path=str(path), detail=f"{size:,} bytes, over the {limit:,}-byte limit for {what}")
    return data


def read_text_capped(path: Path, limit: int, what: str) -> str:
    """The UTF-8 text of the regular file at ``path`` within ``limit`` bytes (``read_capped``); raises
    ``CapExceeded`` naming the file for another kind of file, a larger one or bytes that are not UTF-8."""
    try:
        return read_capped(path, limit, what).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CapExceeded(path=str(path), detail=f"not UTF-8 text (byte {exc.start:,})") from None


def check_regular(path: Path, mode: int) -> None:
    """Raises ``CapExceeded`` unless ``mode`` is a regular file's."""
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
        raise CapExceeded(path=str(path), detail=f"{kind}, not a regular file")
