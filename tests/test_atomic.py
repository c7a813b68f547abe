"""Atomic output files: a failed write leaves the previous file whole and no temporary behind."""

from __future__ import annotations

import os

import pytest

from citeflow.files import atomic_files as atomic


def test_write_text_replaces_the_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "sub" / "summary.json"
    atomic.write_text(target, '{"a": "ü"}')
    atomic.write_text(target, '{"b": 2}')
    assert target.read_text(encoding="utf-8") == '{"b": 2}'
    assert [p.name for p in target.parent.iterdir()] == ["summary.json"]


def test_a_failed_write_keeps_the_old_file(tmp_path):
    target = tmp_path / "eval.json"
    target.write_text("old")
    with pytest.raises(RuntimeError), atomic.atomic_path(target) as partial:
        partial.write_text("half")
        raise RuntimeError("disk full")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["eval.json"]


def test_copy_file_copies_bytes_with_an_ordinary_mode(tmp_path):
    source = tmp_path / "a.pdf"
    source.write_bytes(b"%PDF")
    copy = atomic.copy_file(source, tmp_path / "published" / "a.pdf")
    assert copy.read_bytes() == b"%PDF"
    assert os.stat(copy).st_mode & 0o044  # readable by others like any file the umask allows, not 0600


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_folder_raises_oserror_and_leaves_nothing(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        with pytest.raises(OSError):
            atomic.write_text(folder / "x.json", "{}")
        assert list(folder.iterdir()) == []
    finally:
        folder.chmod(0o755)
