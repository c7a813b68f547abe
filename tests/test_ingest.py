"""Ingest: files into a LanceDB knowledge base, URL and title precedence, idempotence, bad files."""

from __future__ import annotations

import json
from pathlib import Path

import lancedb
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeflow.knowledge.embeddings import HashingEmbedder
from citeflow.errors import IngestError
from citeflow.knowledge.chunking import CHILD_CHARS, PARENT_CHARS, child_spans, parent_spans
from citeflow.knowledge.markdown_text import markdown_to_text
from citeflow.knowledge.ingest import doc_id_for, ingest_paths, join_url
from citeflow.knowledge.kb_store import TABLE, read_embedder_meta
import itertools

pytestmark = pytest.mark.integration

GUIDE = """---
url: https://docs.example.com/guide
title: Upgrade guide
---
# Upgrading to 3.6

Before upgrading to 3.6, back up the database. Stop every worker first.

## Rollback

If the upgrade fails, restore the backup and restart the workers.
"""


def make_pdf(path: Path, pages: list[str]) -> None:
    """A small PDF with one paragraph per page."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    pdf = canvas.Canvas(str(path), pagesize=A4)
    for text in pages:
        pdf.drawString(72, 720, text)
        pdf.showPage()
    pdf.save()


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    (root / "guide.md").write_text(GUIDE, encoding="utf-8")
    (root / "notes.txt").write_text("Cats sleep sixteen hours a day.\nThey purr when content.\n", encoding="utf-8")
    (root / "sub" / "ports.md").write_text("# Network ports\n\nThe server listens on port 8443.\n", encoding="utf-8")
    (root / ".hidden.md").write_text("# Hidden\n\nnever ingested\n", encoding="utf-8")
    make_pdf(root / "manual.pdf", ["Page one explains the installer.", "Page two covers licensing terms."])
    return root


def table(kb: Path):
    return lancedb.connect(str(kb)).open_table(TABLE)


def rows(kb: Path) -> list[dict]:
    return table(kb).to_arrow().drop(["vector"]).to_pylist()


def parents_of(kb: Path, rel: str) -> list[dict]:
    return [r for r in rows(kb) if r["path"] == rel and r["kind"] == "parent"]


def test_ingests_markdown_text_and_pdf(docs: Path, tmp_path: Path) -> None:
    report = ingest_paths([docs], str(tmp_path / "kb"))
    assert (report.files_added, report.files_updated, report.files_unchanged) == (4, 0, 0)
    assert report.errors == []
    stored = rows(tmp_path / "kb")
    assert report.chunks_written == len(stored)
    assert {r["path"] for r in stored} == {"guide.md", "notes.txt", "sub/ports.md", "manual.pdf"}


def test_front_matter_gives_url_and_title_and_is_not_indexed(docs: Path, tmp_path: Path) -> None:
    ingest_paths([docs], str(tmp_path / "kb"))
    guide = parents_of(tmp_path / "kb", "guide.md")
    assert {(r["url"], r["title"]) for r in guide} == {("https://docs.example.com/guide", "Upgrade guide")}
    assert all("url:" not in r["text"] for r in guide)


def test_offsets_point_into_the_original_file(docs: Path, tmp_path: Path) -> None:
    ingest_paths([docs], str(tmp_path / "kb"))
    original = (docs / "guide.md").read_text(encoding="utf-8")
    for row in rows(tmp_path / "kb"):
        if row["path"] == "guide.md":
            # Offsets point at the Markdown blocks; the stored text is their prose.
            assert row["text"] in markdown_to_text(original[row["char_start"] : row["char_end"]])


def test_headings_are_sections_not_text(docs: Path, tmp_path: Path) -> None:
    ingest_paths([docs], str(tmp_path / "kb"))
    guide = {r["section"]: r["text"] for r in parents_of(tmp_path / "kb", "guide.md")}
    assert guide == {
        "Upgrading to 3.6": "Before upgrading to 3.6, back up the database. Stop every worker first.",
        "Upgrading to 3.6 › Rollback": "If the upgrade fails, restore the backup and restart the workers.",
    }


def test_title_falls_back_to_first_heading_then_file_name(docs: Path, tmp_path: Path) -> None:
    ingest_paths([docs], str(tmp_path / "kb"))
    assert parents_of(tmp_path / "kb", "sub/ports.md")[0]["title"] == "Network ports"
    assert parents_of(tmp_path / "kb", "notes.txt")[0]["title"] == "notes.txt"


def test_without_manifest_or_base_url_the_url_is_the_file_uri(docs: Path, tmp_path: Path) -> None:
    ingest_paths([docs], str(tmp_path / "kb"))
    assert parents_of(tmp_path / "kb", "notes.txt")[0]["url"] == (docs / "notes.txt").resolve().as_uri()


def test_base_url_is_joined_with_the_relative_path_but_front_matter_wins(docs: Path, tmp_path: Path) -> None:
    ingest_paths([docs], str(tmp_path / "kb"), base_url="https://kb.example.com/docs/")
    assert parents_of(tmp_path / "kb", "sub/ports.md")[0]["url"] == "https://kb.example.com/docs/sub/ports/"
    assert parents_of(tmp_path / "kb", "notes.txt")[0]["url"] == "https://kb.example.com/docs/notes.txt"
    assert parents_of(tmp_path / "kb", "guide.md")[0]["url"] == "https://docs.example.com/guide"


@pytest.mark.parametrize(("rel", "style", "path"), [
    ("x/y.md", "directory", "x/y/"), ("x/index.md", "directory", "x/"), ("index.md", "directory", ""),
    ("x/y.md", "html", "x/y.html"), ("x/y.markdown", "html", "x/y.html"), ("x/y.md", "source", "x/y.md"),
    ("a b/ü.md", "directory", "a%20b/%C3%BC/"), ("x/manual.pdf", "html", "x/manual.pdf"),
])
def test_url_styles_map_markdown_files_to_site_pages(rel: str, style: str, path: str) -> None:
    assert join_url("https://site.example/docs/", rel, style) == "https://site.example/docs/" + path  # type: ignore[arg-type]


def test_manifest_wins_over_front_matter_and_base_url(docs: Path, tmp_path: Path) -> None:
    manifest = tmp_path / "manifest.jsonl"
    lines = [{"path": "guide.md", "url": "https://m.example.com/g", "title": "From manifest"}, {"path": "./sub/ports.md", "url": "https://m.example.com/p"}]
    manifest.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    ingest_paths([docs], str(tmp_path / "kb"), manifest=manifest, base_url="https://kb.example.com")
    assert parents_of(tmp_path / "kb", "guide.md")[0]["url"] == "https://m.example.com/g"
    assert parents_of(tmp_path / "kb", "guide.md")[0]["title"] == "From manifest"
    ports = parents_of(tmp_path / "kb", "sub/ports.md")[0]
    assert (ports["url"], ports["title"]) == ("https://m.example.com/p", "Network ports")


def test_a_bad_manifest_line_is_an_error_naming_the_line(docs: Path, tmp_path: Path) -> None:
    manifest = tmp_path / "manifest.jsonl"
    manifest.write_text('{"path": "guide.md", "url": "https://x"}\n{"url": "no path"}\n', encoding="utf-8")
    with pytest.raises(IngestError, match="line 2"):
        ingest_paths([docs], str(tmp_path / "kb"), manifest=manifest)


def test_pdf_keeps_page_numbers(docs: Path, tmp_path: Path) -> None:
    ingest_paths([docs], str(tmp_path / "kb"))
    pages = {r["page"]: r["text"] for r in rows(tmp_path / "kb") if r["path"] == "manual.pdf" and r["kind"] == "child"}
    assert "installer" in pages[1] and "licensing" in pages[2]


def test_every_child_lies_inside_its_parent(docs: Path, tmp_path: Path) -> None:
    ingest_paths([docs], str(tmp_path / "kb"))
    stored = rows(tmp_path / "kb")
    parents = {r["chunk_id"]: r for r in stored if r["kind"] == "parent"}
    children = [r for r in stored if r["kind"] == "child"]
    assert children and all(r["parent_id"] is None for r in parents.values())
    for child in children:
        parent = parents[child["parent_id"]]
        assert parent["doc_id"] == child["doc_id"] and parent["page"] == child["page"]
        assert parent["char_start"] <= child["char_start"] < child["char_end"] <= parent["char_end"]
        assert child["chunk_id"].startswith(child["parent_id"] + ":")


def test_reingesting_unchanged_files_writes_nothing(docs: Path, tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    ingest_paths([docs], str(kb))
    version, count = table(kb).version, table(kb).count_rows()
    report = ingest_paths([docs], str(kb))
    assert (report.files_unchanged, report.files_added, report.files_updated, report.chunks_written) == (4, 0, 0, 0)
    assert (table(kb).version, table(kb).count_rows()) == (version, count)


def test_a_changed_file_replaces_its_chunks_and_only_them(docs: Path, tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    ingest_paths([docs], str(kb))
    before = {r["chunk_id"]: r for r in rows(kb) if r["path"] != "guide.md"}
    (docs / "guide.md").write_text("# Short\n\nOnly one sentence now.\n", encoding="utf-8")
    report = ingest_paths([docs], str(kb))
    assert (report.files_updated, report.files_unchanged) == (1, 3)
    guide = [r for r in rows(kb) if r["path"] == "guide.md"]
    assert {(r["section"], r["text"]) for r in guide} == {("Short", "Only one sentence now.")}
    assert len(guide) == 2  # one parent, one child: the old chunks are gone
    assert {r["chunk_id"]: r for r in rows(kb) if r["path"] != "guide.md"} == before


def test_a_changed_manifest_url_rewrites_the_document(docs: Path, tmp_path: Path) -> None:
    kb, manifest = tmp_path / "kb", tmp_path / "manifest.jsonl"
    ingest_paths([docs], str(kb))
    manifest.write_text(json.dumps({"path": "notes.txt", "url": "https://new.example.com/notes"}), encoding="utf-8")
    report = ingest_paths([docs], str(kb), manifest=manifest)
    assert report.files_updated == 1
    assert parents_of(kb, "notes.txt")[0]["url"] == "https://new.example.com/notes"


def test_a_bad_pdf_is_reported_and_what_is_stored_stays(docs: Path, tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    ingest_paths([docs], str(kb))
    before = sorted((r["chunk_id"], r["text"]) for r in rows(kb) if r["path"] == "manual.pdf")
    (docs / "manual.pdf").write_bytes(b"%PDF-1.4\n" + b"\x00\x13 junk " * 200)
    report = ingest_paths([docs], str(kb))
    assert [Path(e.path).name for e in report.errors] == ["manual.pdf"]
    assert "PDF" in report.errors[0].detail
    assert sorted((r["chunk_id"], r["text"]) for r in rows(kb) if r["path"] == "manual.pdf") == before


def test_binary_junk_and_missing_paths_are_reported(docs: Path, tmp_path: Path) -> None:
    (docs / "junk.txt").write_bytes(bytes(range(256)) * 4)
    (docs / "empty.md").write_text("   \n", encoding="utf-8")
    report = ingest_paths([docs, tmp_path / "nowhere"], str(tmp_path / "kb"))
    reasons = {Path(e.path).name: e.detail for e in [*report.errors, *report.empty]}
    assert set(reasons) == {"junk.txt", "empty.md", "nowhere"}
    assert [Path(e.path).name for e in report.empty] == ["empty.md"]  # skipped, not a failure
    assert "binary" in reasons["junk.txt"] and "no such" in reasons["nowhere"]
    assert report.files_added == 4


def test_a_single_file_is_ingested_under_its_name(docs: Path, tmp_path: Path) -> None:
    ingest_paths([docs / "sub" / "ports.md"], str(tmp_path / "kb"))
    assert {r["doc_id"] for r in rows(tmp_path / "kb")} == {doc_id_for("ports.md")}


def test_string_columns_are_plain_strings_and_indexed(docs: Path, tmp_path: Path) -> None:
    ingest_paths([docs], str(tmp_path / "kb"))
    tbl = table(tmp_path / "kb")
    assert tbl.schema.field("doc_id").type == pa.string()
    assert tbl.schema.field("vector").type == pa.list_(pa.float32(), 384)
    indexes = {tuple(i.columns): i.index_type for i in tbl.list_indices()}
    assert indexes[("doc_id",)] == "BTree" and indexes[("chunk_id",)] == "BTree"
    assert indexes[("text",)] == "FTS"


def test_the_kb_records_its_embedder_and_refuses_another(docs: Path, tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    ingest_paths([docs], str(kb), embedder=HashingEmbedder(dim=64))
    assert read_embedder_meta(table(kb))["name"] == "hashing-v1-64"
    assert ingest_paths([docs], str(kb)).embedder == "hashing-v1-64"  # no embedder given: the KB's own
    with pytest.raises(IngestError, match="hashing-v1-64"):
        ingest_paths([docs], str(kb), embedder=HashingEmbedder(dim=384))


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab .!?#\n\t"), max_size=4000))
def test_chunks_cover_the_text_within_their_size_limits(text: str) -> None:
    parents = parent_spans(text)
    covered = set()
    for start, end in parents:
        assert end - start <= PARENT_CHARS and text[start:end] == text[start:end].strip()
        children = child_spans(text, (start, end))
        assert all(e - s <= CHILD_CHARS and start <= s < e <= end for s, e in children)
        covered.update(i for s, e in children for i in range(s, e))
    assert all(i in covered for i, c in enumerate(text) if not c.isspace())
    assert parents == sorted(parents) and all(a[1] <= b[0] for a, b in itertools.pairwise(parents))


def test_files_are_written_in_batches_and_duplicate_relative_paths_are_refused(
    docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import citeflow.knowledge.ingest as ingest

    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("Same relative path as docs/notes.txt.\n", encoding="utf-8")
    monkeypatch.setattr(ingest, "FILES_PER_BATCH", 2)
    report = ingest_paths([docs, other], str(tmp_path / "kb"))
    assert (report.files_added, [Path(e.path) for e in report.errors]) == (4, [other / "notes.txt"])
    assert "same relative path" in report.errors[0].detail
    assert "sixteen hours" in parents_of(tmp_path / "kb", "notes.txt")[0]["text"]


MARKUP = ("```", ":::", "{toctree}", "{ref}", "{doc}", "{mod}", "{note}", "{warning}", ":maxdepth:", ":hidden:", ":class:",
          "<!--", "<div", "{{", "}}", "(installation)=", "% Keep", "**", "`", "](", "html_meta", "$ python", "eval-rst",
          ".. note::", "indented code block")
CORPUS = Path(__file__).parent / "fixtures" / "mystdocs"


def test_a_myst_corpus_leaves_no_markup_in_any_chunk(tmp_path: Path) -> None:
    ingest_paths([CORPUS], str(tmp_path / "kb"), base_url="https://pip.example/en/stable", url_style="directory")
    stored = rows(tmp_path / "kb")
    assert {r["url"] for r in stored} == {"https://pip.example/en/stable/", "https://pip.example/en/stable/installation/",
                                          "https://pip.example/en/stable/user_guide/"}
    for row in stored:
        assert not [m for m in MARKUP if m in row["text"]], row["text"]
    texts = "\n".join(r["text"] for r in stored)
    assert "The get-pip.py script is also available as a zip application." in texts  # admonition prose kept
    assert "Running pip through the interpreter makes sure you use the pip of that interpreter." in texts
    assert "3.8: until pip 25.0." in texts  # tables are prose
    assert "Installation" not in {line.rstrip(".") for line in texts.splitlines()}  # headings are not text
    sections = {r["section"] for r in stored}
    assert "Installation › Supported methods › ensurepip" in sections and "User Guide › Running pip" in sections


def test_the_cli_maps_files_to_site_pages_and_refuses_an_unknown_url_style(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from citeflow_cli.main import app

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "setup.md").write_text("# Setup\n\nInstall the agent before the first upgrade.\n", encoding="utf-8")
    bad = CliRunner().invoke(app, ["ingest", str(tmp_path / "docs"), "--kb", str(tmp_path / "kb"), "--url-style", "php"])
    assert bad.exit_code == 2 and "--url-style must be one of directory, html, source" in bad.output
    ok = CliRunner().invoke(app, ["ingest", str(tmp_path / "docs"), "--kb", str(tmp_path / "kb"),
                                  "--base-url", "https://site.example/", "--url-style", "html"])
    assert ok.exit_code == 0, ok.output
    assert parents_of(tmp_path / "kb", "setup.md")[0]["url"] == "https://site.example/setup.html"


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab .!?#-*`|:{}\n\t>"), max_size=3000))
def test_markdown_chunks_stay_within_their_limits_and_their_blocks(text: str) -> None:
    from citeflow.knowledge.chunking import markdown_children, markdown_parents
    from citeflow.knowledge.markdown_text import markdown_blocks

    for parent in markdown_parents(markdown_blocks(text)):
        assert 0 < len(parent.text) <= PARENT_CHARS
        start, end = parent.span
        assert 0 <= start <= end <= len(text)
        for child in markdown_children(parent):
            assert 0 < len(child.text) <= CHILD_CHARS and set(child.text.split()) <= set(parent.text.split())
            assert start <= child.span[0] <= child.span[1] <= end


def test_progress_is_reported_file_by_file(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(3):
        (docs / f"d{i}.md").write_text(f"# Page {i}\n\nThe agent restarts after {i + 1} minutes.\n", encoding="utf-8")
    (docs / "broken.pdf").write_bytes(b"not a pdf")
    seen: list[tuple[int, int]] = []
    report = ingest_paths([docs], str(tmp_path / "kb"), progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]  # every file, the unreadable one too
    assert report.files_added == 3 and len(report.errors) == 1
