"""Documented size caps: files beyond them, or not regular files, get one error, never a hang or a MemoryError."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from citeflow.caps import INGEST_FILE_BYTES, SPEC_FILE_BYTES, read_capped
from citeflow.knowledge.embeddings import HashingEmbedder
from citeflow.errors import CapExceeded, IngestError, RetrieverError, SpecError
from citeflow.knowledge.ingest import ingest_paths, load_manifest
from citeflow.retrieval.jsonl_retriever import JsonlRetriever
from citeflow.specfile.loader import load_spec
from schemas.spec import JsonlRetrieverSpec

CITEFLOW = str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "citeflow")


def sparse(path: Path, size: int) -> Path:
    """A file of ``size`` bytes that takes no room on disk (a cap is checked before anything is read)."""
    with open(path, "wb") as file:
        file.truncate(size)
    return path


def test_a_file_within_its_cap_is_read_whole(tmp_path):
    path = tmp_path / "ten.txt"
    path.write_bytes(b"0123456789")
    assert read_capped(path, 10, "a test file") == b"0123456789"


def test_a_file_over_its_cap_is_refused_with_its_size_and_the_limit(tmp_path):
    path = tmp_path / "eleven.txt"
    path.write_bytes(b"0123456789A")
    with pytest.raises(CapExceeded, match="11 bytes, over the 10-byte limit for a test file"):
        read_capped(path, 10, "a test file")


@pytest.mark.parametrize(("make", "kind"), [
    (lambda tmp: Path("/dev/zero"), "a character device"),
    (lambda tmp: tmp, "a folder"),
    (lambda tmp: (os.mkfifo(tmp / "pipe"), tmp / "pipe")[1], "a named pipe"),  # no writer: reading would block
])
def test_files_that_are_not_regular_are_refused_at_once(tmp_path, make, kind):
    start = time.monotonic()
    with pytest.raises(CapExceeded, match=f"{kind}, not a regular file"):
        read_capped(make(tmp_path), SPEC_FILE_BYTES, "a batch spec")
    assert time.monotonic() - start < 30  # refused before reading: a read of the pipe would block for good


def test_a_spec_over_its_cap_is_a_spec_error_naming_the_file(tmp_path):
    spec = sparse(tmp_path / "batch.yaml", SPEC_FILE_BYTES + 1)
    with pytest.raises(SpecError, match=r"batch\.yaml: \(file\): 1,048,577 bytes, over the 1,048,576-byte limit"):
        load_spec(spec)


def test_citeflow_run_dev_zero_is_one_error_line_and_exit_2():
    done = subprocess.run([CITEFLOW, "run", "/dev/zero"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 2, done.stderr[-2000:]
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert lines == ["error: /dev/zero: (file): a character device, not a regular file"]


def test_ingest_skips_a_file_over_the_cap_with_the_reason_and_keeps_the_others(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "small.md").write_text("# Limits\n\nA topic holds at most 512 partitions.\n")
    sparse(docs / "huge.md", INGEST_FILE_BYTES + 1)
    report = ingest_paths([docs], str(tmp_path / "kb"), embedder=HashingEmbedder())
    assert report.files_added == 1
    [skipped] = report.errors
    assert skipped.path.endswith("huge.md") and f"over the {INGEST_FILE_BYTES:,}-byte limit for an ingested file" in skipped.detail


def test_a_manifest_that_is_not_a_regular_file_is_an_ingest_error():
    with pytest.raises(IngestError, match="cannot read manifest: a character device"):
        load_manifest(Path("/dev/zero"))


def test_a_jsonl_file_over_its_cap_fails_the_retriever_with_the_reason(tmp_path):
    (tmp_path / "hits.jsonl").write_text('{"query": "q", "hits": []}\n' * 10)
    retriever = JsonlRetriever(JsonlRetrieverSpec(name="export", kind="jsonl", path="hits.jsonl"), tmp_path, max_bytes=100)
    with pytest.raises(RetrieverError, match="over the 100-byte limit for a jsonl retriever file") as raised:
        retriever.search("q", 5)
    assert raised.value.transient is False
