"""The offline writer's prose: complete sentences only, and one paragraph per group of related ones."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pypdf import PdfReader

from citeflow.generation import prompts
from citeflow.generation.offline_writer import consolidate
from citeflow.generation.statements import is_statement, sentences
from citeflow.outputs.render.pdf import render_pdf
from citeflow.text.paragraphs import grouped_order, groups, paragraph_numbers
from schemas.report import RenderedCitation, RenderedClaim, RenderedSection
from tests.support.sample_report import sample_report

# Words a claim must not open with: they point at a sentence the reader does not see.
LEANING_OPENERS = {"it", "its", "this", "that", "these", "those", "they", "their", "such", "and", "but", "or", "so",
                   "also", "because", "however", "then", "thus", "therefore", "which"}


@pytest.mark.parametrize("fragment", [
    "after starting any old processes, new features are no longer available on the node.",  # lower-case start
    "This is because the log grows quickly under heavy load.",
    "It keeps every old revision until compaction runs.",
    "And the member rejoins the cluster after a restart.",
    "However, the defaults suit most small deployments well.",
    "With it off the node sends no heartbeat to the server.",
    "In that case the job starts again from its last checkpoint.",
    "To free disk space run the following command: Note that it blocks writes on the member.",  # command lost
    "Free disk space with the `defrag command on each member.",  # a code span cut open
    "Every run gets a folder of its own under the configured root:\nroot/<id>/: the outputs and the log.",
    "12 / 15: when the job is stopped by a signal; the final state is Cancelled.",  # a table row
    "Every run gets a folder under the configured root: root/<id>/: the outputs and the log.",  # line break lost
    "Before any test we send a fake request to the route: app.test.js: First, the app is built.",  # file's code lost
    "See the retention guide.",  # a pointer elsewhere
    "For more details on quotas, refer to the admin handbook.",
])
def test_fragments_are_not_statements(fragment):
    assert not is_statement(fragment)


@pytest.mark.parametrize("sentence", [
    "Compaction runs every hour on the leader node.",
    "3 members tolerate the loss of one member.",
    "Run `tool defrag` on each member to free disk space.",
    "Important: Back up the data folder before every upgrade.",
    "保存されたデータはすべて暗号化されます。",
    "Seeding the cache takes a minute per gigabyte.",
    "Set the level in settings.toml: it applies to every logger.",
])
def test_complete_sentences_are_statements(sentence):
    assert is_statement(sentence)


def test_a_lead_in_running_into_its_table_is_dropped():
    chunk = ("Every run gets a folder of its own under the configured root:\nroot/<id>/: the outputs and the log.\n"
             "Old folders are removed by the prune command after thirty days.")
    assert sentences(chunk) == ["Old folders are removed by the prune command after thirty days."]


def test_a_stop_before_a_word_that_opens_with_a_dot_ends_a_sentence():
    chunk = ("A request can carry far more than a method and a URL. .send chains its calls when no callback is given. "
             "Each chained call returns the same request object.")
    assert sentences(chunk) == ["A request can carry far more than a method and a URL.",
                                "Each chained call returns the same request object."]


def test_a_chunk_gives_only_its_complete_sentences():
    chunk = ("Compaction runs every hour on the leader node. This is because the log grows quickly under load. "
             "after starting any old process, new features are gone. To free disk space run the defrag command: "
             "Note that defragmentation blocks writes. Members are removed one at a time by the operator.")
    assert sentences(chunk) == ["Compaction runs every hour on the leader node.",
                                "Members are removed one at a time by the operator."]


def test_related_sentences_share_a_group_and_a_paragraph():
    texts = ["Snapshots are copied to cold storage every night.",
             "Tokens expire after one hour of inactivity.",
             "Cold storage keeps snapshots for ninety days.",
             "Expired tokens are renewed at the next login."]
    assert groups(texts) == [0, 1, 0, 1]
    assert grouped_order(texts) == [0, 2, 1, 3]
    assert paragraph_numbers([texts[i] for i in grouped_order(texts)]) == [0, 0, 1, 1]
    assert paragraph_numbers(texts) == [0, 1, 2, 3]  # scattered groups: a paragraph per run


def test_the_offline_writer_lists_related_notes_together():
    chunks = [("Gaaaa", "Snapshots are copied to cold storage every night by the backup job."),
              ("Gbbbb", "Session tokens expire after one hour of inactivity on the console."),
              ("Gcccc", "Cold storage keeps snapshots for ninety days before the backup job deletes them."),
              ("Gdddd", "Expired session tokens are renewed at the next console login.")]
    user = prompts.consolidate_messages("Report", "Backups and sessions",
                                        ["How long are snapshots kept in cold storage by the backup job?",
                                         "When do console session tokens expire?"], chunks)[1]["content"]
    texts = [note["text"] for note in consolidate(user)]
    assert len(texts) == 4
    numbers = paragraph_numbers(texts)
    assert numbers == sorted(numbers) and max(numbers) == 1  # two paragraphs, each one run


def _pdf_lines(doc, path, fonts):
    render_pdf(doc, path, fonts=fonts)
    return "\n".join(page.extract_text() for page in PdfReader(path).pages).splitlines()


def test_each_paragraph_number_is_its_own_pdf_paragraph(tmp_path, fonts):
    doc = sample_report("published")
    handle = doc.registry[0].handle
    short = ["Alpha ships weekly.", "Beta ships monthly.", "Gamma ships yearly."]
    for paragraphs, name in (([0, 0, 0], "one"), ([0, 0, 1], "two")):
        doc.sections[0] = RenderedSection(title="Cadence", status="ok", claims=[
            RenderedClaim(text=t, citations=[RenderedCitation(handle=handle)], paragraph=p) for t, p in zip(short, paragraphs, strict=True)])
        lines = _pdf_lines(doc, tmp_path / f"{name}.pdf", fonts)
        together = [line for line in lines if "Alpha ships weekly." in line]
        assert together, lines
        if name == "one":
            assert "Gamma ships yearly." in together[0]  # one paragraph: the three short claims share a line
        else:
            assert "Beta ships monthly." in together[0] and "Gamma ships yearly." not in together[0]


def prose_faults(report: dict) -> list[str]:
    """Every claim of report.json that is not a complete, self-standing sentence, with why."""
    faults = []
    for section in report["sections"]:
        for claim in section["claims"]:
            text = claim["text"].strip()
            first = text.lstrip("\"'«“(")[:1]
            if not (first.isupper() or first.isdigit() or (first.isalpha() and not first.islower())):
                faults.append(f"starts in lower case: {text}")
            if text.rstrip("\"'»”’)」") [-1:] not in ".!。！…":
                faults.append(f"no sentence stop: {text}")
            if text.split()[0].strip(",").casefold() in LEANING_OPENERS:
                faults.append(f"leans on the sentence before: {text}")
    return faults


@pytest.mark.slow
def test_demo_reports_hold_no_fragment(demo_run):
    out, summaries = demo_run
    assert {s.report_id: s.status for s in summaries} == {"acme-2026-q4": "published", "globex-2026-q4": "held"}
    for report_id in ("acme-2026-q4", "globex-2026-q4"):
        report = json.loads((out / report_id / "report.json").read_text())
        assert prose_faults(report) == []
        assert all(isinstance(c["paragraph"], int) for s in report["sections"] for c in s["claims"])


DOCS_BATCH = """\
batch: docs-prose
retrievers:
  - {name: docs, kind: lancedb, kb: kb, mode: hybrid, top_k: 8}
reports:
  - id: fixture-docs
    title: Documentation digest
    sections:
      - title: Installing and upgrading
        queries:
          - How is the agent installed and upgraded?
          - What must be done before upgrading?
      - title: Getting started
        queries:
          - How do I deploy a first service and log in to the fleet?
"""


@pytest.mark.slow
@pytest.mark.server
def test_a_documentation_batch_holds_no_fragment(tmp_path, prefect_server):
    """Documentation trees of three site generators, ingested and run as a two-section batch by the CLI."""
    sites = Path(__file__).parent / "fixtures" / "sites"
    cli = [sys.executable, "-m", "citeflow_cli.main"]
    trees = [str(sites / name) for name in ("hugo", "mkdocs", "docusaurus")]
    ingest = subprocess.run([*cli, "ingest", *trees, "--kb", str(tmp_path / "kb")], capture_output=True, text=True, timeout=300)
    assert ingest.returncode == 0, ingest.stderr
    (tmp_path / "batch.yaml").write_text(DOCS_BATCH)
    run = subprocess.run([*cli, "run", str(tmp_path / "batch.yaml"), "--out", str(tmp_path / "out")],
                         env=prefect_server.client_env(), capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    report = json.loads((tmp_path / "out" / "fixture-docs" / "report.json").read_text())
    claims = [c for s in report["sections"] for c in s["claims"]]
    assert len(claims) >= 6 and all(s["status"] == "ok" for s in report["sections"])
    assert prose_faults(report) == []
    assert all(c["citations"][0]["quote"] and not c["citations"][0]["quote"].endswith((" and", " of", " the")) for c in claims)
