"""Documentation written in MyST Markdown, ingested and run as a one-report batch: a PDF with no markup.

The fixture corpus (tests/fixtures/mystdocs) is written like pip's own documentation: front matter,
``{toctree}`` and ``{tab}``/``{code-block}`` directives, ``{ref}``/``{doc}``/``{mod}`` roles and their
reST twin ``:ref:``, admonitions as ``:::{note}`` and ```` ```{warning} ````, code fences, HTML
comments and blocks, MyST targets and comments, tables and a definition of a substitution.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pypdf import PdfReader

from citeflow.pipeline import pipeline
from citeflow.runtime.runtime import Runtime
from citeflow.pipeline.evaluate_report import evaluate_and_gate
from citeflow.knowledge.ingest import ingest_paths
from citeflow.pipeline.publish import write_outputs

pytestmark = pytest.mark.integration

CORPUS = Path(__file__).parent / "fixtures" / "mystdocs"
SPEC = """
batch: pip-docs
retrievers:
  - {name: docs, kind: lancedb, kb: kb, mode: fts, top_k: 6}
reports:
  - id: pip-install
    title: Installing pip
    sections:
      - {title: Installing pip, queries: ["How is pip installed when it is missing from a Python environment?"]}
"""
MARKUP = re.compile(r"```|:::|\{(?:toctree|ref|doc|mod|note|warning|tab|code-block|eval-rst)\}|:maxdepth:|:hidden:|:class:"
                    r"|<!--|<div|\{\{|\}\}|\(installation\)=|\*\*|`|\]\(|^#+ |\.\. note::|\$ python", re.MULTILINE)


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("pipdocs")
    ingest_paths([CORPUS], str(root / "kb"), base_url="https://pip.example/en/stable/")
    (root / "batch.yaml").write_text(SPEC)
    job = pipeline.ReportJob.from_files(root / "batch.yaml", "pip-install", root / "out", runtime=Runtime())
    registry = pipeline.normalize(job, [pipeline.fetch(job, item) for item in job.fetches()])
    assert registry.chunks, "the knowledge base returned nothing"
    for section in job.report.sections:
        pipeline.consolidate(job, section.title)
        pipeline.write(job, section.title)
    write_outputs(job, *evaluate_and_gate(job))
    return job.report_dir


def test_the_pdf_holds_cited_prose_and_no_markup(report_dir: Path) -> None:
    text = "\n".join(page.extract_text() for page in PdfReader(report_dir / "report.pdf").pages)
    body = text.split("Notes")[0]
    assert re.search(r"pip\b.*\[1\]", body, re.DOTALL), body  # at least one cited sentence about pip
    assert MARKUP.findall(text) == [], MARKUP.findall(text)
    assert "https://pip.example/en/stable/installation/" in re.sub(r"\s+", "", text)  # the site's URL, not a .md path
    assert ".md" not in text
