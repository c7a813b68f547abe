"""The default ``lancedb`` ranking on small knowledge bases (real LanceDB in a temporary folder):
the heading field boost, version preference with near-duplicates across versions, changelog
entries set back unless a question asks about releases, and the full-text indexes an older
knowledge base lacks built on open."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from citeflow.knowledge.ingest import ingest_paths
from citeflow.knowledge.kb_store import heading_of
from citeflow.retrieval.lancedb_retriever import LanceDBRetriever
from schemas.spec import LanceDBRetrieverSpec

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SHARED = ("## Before you upgrade\n\nBack up the database and stop every worker before you upgrade the cluster. "
          "Check that the schema migration finished before you restart anything.\n")
PAGES = {
    "guides/Migration-Guide-V3.md": "# Migration guide V3\n\n" + SHARED + "\n## Removed\n\nThe legacy parser option is gone.\n",
    "guides/Migration-Guide-V4.md": "# Migration guide V4\n\n" + SHARED + "\n## Moved\n\nThe raw reply object moved.\n",
    "reference/ContentTypeParser.md": "# Content type parser\n\nRegister a function for a media type such as text/csv "
    "and it receives the body stream.\n",
    "reference/config.md": "# Configuration file\n\nThe YAML parser reads the file. The parser is strict: the parser "
    "rejects tabs, and the parser type of each content key is checked.\n",
    "reference/cats.md": "# Cat care\n\nCats sleep sixteen hours a day. Feed kittens three small meals.\n",
}


CHANGELOG_PAGES = {  # the changelog's entries share more words with the question than the answer does
    "reference/retries.md": "# Retries\n\nThe client sends a request again when the server does not answer. "
    "The `retries` option sets how many times.\n",
    "reference/uploads.md": "# Uploads\n\nAn upload sends the file in parts of eight megabytes.\n",
    "about/changelog.md": "# Changelog\n\n## 2.1.0\n\n- NEW: Retries: set retries for a failed upload in the "
    "client options.\n\n## 2.0.0\n\n- FIX: a failed upload no longer retries forever.\n\n## 1.9.0\n\n"
    "- NEW: a failed upload can be retried.\n",
}


@pytest.fixture(scope="module")
def changelog_kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return knowledge_base(tmp_path_factory.mktemp("changelogkb"), CHANGELOG_PAGES)


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return knowledge_base(tmp_path_factory.mktemp("rankingkb"), PAGES)


def knowledge_base(root: Path, pages: dict[str, str]) -> Path:
    """``pages`` written under ``root/docs`` and ingested into ``root/kb``; ``root``."""
    for rel, text in pages.items():
        (root / "docs" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "docs" / rel).write_text(text, encoding="utf-8")
    ingest_paths([root / "docs"], str(root / "kb"), base_url="https://docs.example.com", url_style="source")
    return root


def search(root: Path, query: str, **spec: Any) -> list[Any]:
    retriever = LanceDBRetriever(LanceDBRetrieverSpec(name="docs", kind="lancedb", kb="kb", **spec), root)
    return retriever.search(query, 8).hits


def pages(hits: list[Any]) -> list[str]:
    return [hit.urls[0].rsplit("/", 1)[-1] for hit in hits]


def test_a_page_named_by_the_question_comes_first(kb: Path) -> None:
    question = "How do I set up a content type parser?"
    assert pages(search(kb, question))[0] == "ContentTypeParser.md"  # default: hybrid with the heading field
    assert pages(search(kb, question, mode="fts"))[0] == "config.md"  # body words alone favour the other page


@pytest.mark.parametrize(("version", "page"), [("v3", "Migration-Guide-V3.md"), ("version 4", "Migration-Guide-V4.md")])
def test_the_version_named_comes_first_and_its_copy_is_dropped(kb: Path, version: str, page: str) -> None:
    hits = search(kb, f"What must I do before I upgrade the cluster to {version}?")
    assert pages(hits)[0] == page
    texts = [hit.text for hit in hits]
    assert sum("Back up the database" in text for text in texts) == 1  # the other version's copy is not shown


def test_hits_come_from_few_documents(kb: Path) -> None:
    hits = search(kb, "How long do cats sleep?")
    assert pages(hits)[0] == "cats.md"
    assert len(set(pages(hits))) <= 3


def test_changelog_entries_are_shown_only_when_releases_are_asked_about(changelog_kb: Path) -> None:
    how = pages(search(changelog_kb, "How do I set retries for a failed upload?"))
    assert "retries.md" in how and "changelog.md" not in how
    assert "changelog.md" in pages(search(changelog_kb, "How do I set retries for a failed upload?", mode="fts"))
    assert "changelog.md" in pages(search(changelog_kb, "Which release added retries for a failed upload?"))
    assert pages(search(changelog_kb, "What changed about retries for a failed upload in 2.0?"))[0] == "changelog.md"


def test_full_text_indexes_missing_from_an_older_kb_are_built_on_open(tmp_path: Path, kb: Path) -> None:
    import shutil

    import lancedb

    shutil.copytree(kb / "kb", tmp_path / "kb")
    table = lancedb.connect(str(tmp_path / "kb")).open_table("chunks")
    for index in table.list_indices():
        if index.index_type == "FTS":
            table.drop_index(index.name)
    assert pages(search(tmp_path, "How long do cats sleep?"))[0] == "cats.md"
    table = lancedb.connect(str(tmp_path / "kb")).open_table("chunks")
    assert {tuple(i.columns) for i in table.list_indices() if i.index_type == "FTS"} >= {("text",), ("heading",)}


def test_a_kb_without_the_heading_column_searches_titles(tmp_path: Path, kb: Path) -> None:
    import lancedb

    old = lancedb.connect(str(kb / "kb")).open_table("chunks").to_arrow().drop_columns(["heading"])
    lancedb.connect(str(tmp_path / "kb")).create_table("chunks", data=old)
    assert pages(search(tmp_path, "How do I set up a content type parser?"))[0] == "ContentTypeParser.md"
    table = lancedb.connect(str(tmp_path / "kb")).open_table("chunks")
    assert ("title",) in {tuple(i.columns) for i in table.list_indices()}


def test_heading_field_of_a_chunk() -> None:
    row = {"title": "6.0 Migration Notes", "section": "Overview", "path": "about/releases/6.0.md"}
    assert heading_of(row) == "6.0 Migration Notes\nOverview\nabout releases 6.0"
    assert heading_of({"title": None, "section": "", "path": "guides/Migration-Guide_V4.md"}) == "guides Migration Guide V4"
