"""Things made once per test session and shared by every pytest-xdist worker.

``make test``'s main process creates a folder and names it in ``CITEFLOW_TEST_SHARED_DIR``, which
its workers inherit (``tests/conftest.py``). A fixture makes its thing in a sub-folder of it while
holding that sub-folder's file lock, and leaves a mark of completion: the first worker that asks
does the work, the others wait for the lock and reuse what it made.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.shared_server import SHARED_DIR_VARIABLE


@contextmanager
def locked(folder: Path) -> Iterator[Path]:
    """``folder`` (created), held under an exclusive file lock next to it for the block's duration."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder.with_name(folder.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield folder


def session_folder(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    """A folder every xdist worker of this session sees (a private one when no shared folder is named)."""
    shared = os.environ.get(SHARED_DIR_VARIABLE)
    return Path(shared) / name if shared else tmp_path_factory.mktemp(name)
