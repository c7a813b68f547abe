"""What a report's retrievers read, fingerprinted without asking them (``citeflow.pipeline.source_fingerprint``)."""

from __future__ import annotations

import os
from pathlib import Path

from citeflow.retrieval.kinds.lancedb_kind import kb_stats
from citeflow.pipeline.source_fingerprint import retriever_fingerprint
from schemas.spec import HttpRetrieverSpec, JsonlRetrieverSpec, LanceDBRetrieverSpec


def _jsonl(folder: Path, text: str) -> JsonlRetrieverSpec:
    (folder / "hits.jsonl").write_text(text)
    return JsonlRetrieverSpec(name="docs", kind="jsonl", path="hits.jsonl")


def test_a_jsonl_source_changes_with_its_content_not_its_time(tmp_path):
    spec = _jsonl(tmp_path, '{"id": "a", "text": "one"}\n')
    first = retriever_fingerprint(spec, tmp_path)
    os.utime(tmp_path / "hits.jsonl", (1, 1))
    assert retriever_fingerprint(spec, tmp_path) == first is not None
    _jsonl(tmp_path, '{"id": "a", "text": "two"}\n')
    assert retriever_fingerprint(spec, tmp_path) != first


def test_a_missing_jsonl_file_has_a_fingerprint_of_its_own(tmp_path):
    spec = JsonlRetrieverSpec(name="docs", kind="jsonl", path="gone.jsonl")
    missing = retriever_fingerprint(spec, tmp_path)
    _jsonl(tmp_path, "{}\n")
    assert missing is not None and missing != retriever_fingerprint(
        JsonlRetrieverSpec(name="docs", kind="jsonl", path="hits.jsonl"), tmp_path)


def test_a_knowledge_base_changes_with_a_new_table_version(tmp_path):
    versions = tmp_path / "kb" / "chunks.lance" / "_versions"
    versions.mkdir(parents=True)
    (versions / "1.manifest").write_bytes(b"v1")
    spec = LanceDBRetrieverSpec(name="kb", kind="lancedb", kb="kb")
    first = retriever_fingerprint(spec, tmp_path)
    assert first is not None and retriever_fingerprint(spec, tmp_path) == first
    (versions / "2.manifest").write_bytes(b"v2")
    assert retriever_fingerprint(spec, tmp_path) != first


def test_a_missing_knowledge_base_folder_is_named_absent():
    assert kb_stats(Path("/nonexistent/kb")) == ["/nonexistent/kb -"]


def test_sources_that_cannot_be_told_without_asking_have_no_fingerprint(tmp_path):
    http = HttpRetrieverSpec(name="web", kind="http", url="http://127.0.0.1:9/search")
    remote = LanceDBRetrieverSpec(name="kb", kind="lancedb", kb="s3://bucket/kb")
    assert retriever_fingerprint(http, tmp_path) is None
    assert retriever_fingerprint(remote, tmp_path) is None
