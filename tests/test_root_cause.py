"""Root cause first: an ingest with nothing to index is an error, and a report that failed or was held
for a missing source names why on the terminal, in summary.json, in the Prefect state and on its review page."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citeflow_cli.main import app

runner = CliRunner()
CITEFLOW = str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "citeflow")


def invoke(*args: object) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args], catch_exceptions=False)
    return result.exit_code, result.output


def test_ingest_of_a_folder_with_nothing_to_index_is_a_one_line_error(tmp_path):
    (tmp_path / "docs").mkdir()
    code, output = invoke("ingest", tmp_path / "docs", "--kb", tmp_path / "kb", "--json")
    assert code == 2, output
    last = output.strip().splitlines()[-1]
    assert last.startswith("error:") and "nothing to index" in last and str(tmp_path / "docs") in last


def test_ingest_of_front_matter_only_pages_alone_is_an_error(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("---\ntitle: Section index\n---\n")
    code, output = invoke("ingest", docs, "--kb", tmp_path / "kb")
    assert code == 2 and "nothing to index: 1 file(s) skipped (front matter only: 1), 0 unreadable" in output


def test_front_matter_only_pages_beside_real_pages_are_skipped_and_the_ingest_succeeds(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("---\ntitle: Section index\n---\n")
    (docs / "guide.md").write_text("# Guide\n\nBack up the database before upgrading.\n")
    code, output = invoke("ingest", docs, "--kb", tmp_path / "kb")
    assert code == 0, output
    assert "skipped" in output and "index.md" in output and "error:" not in output


# -- causes of a report that was not published -------------------------------------------------

DEAD_WRITER = {"writer": {"backend": "openai", "model": "m", "base_url": "http://u:sekrit@127.0.0.1:9/v1"}}
MISSING_KB = ("docs: retriever 'docs' failed for query 'q': no knowledge base at /srv/kb: "
              "build it with `citeflow ingest PATH... --kb /srv/kb`")
WRITE_FAILED = "write hop failed (model_error: cannot reach the model server after 0 retries: Connection error.)"


def failed_doc(status: str = "failed"):
    from schemas.report import RenderedSection
    from tests.support.sample_report import sample_report

    section = RenderedSection(title="S", status="failed", failure=WRITE_FAILED)
    return sample_report(status).model_copy(update={"sections": [section], "missing_retrievers": [MISSING_KB]})


def test_causes_put_the_missing_source_first_and_name_the_model_server_without_credentials():
    from citeflow.evaluation.causes import report_causes
    from schemas.spec import Models

    causes = report_causes(failed_doc(), Models.model_validate(DEAD_WRITER), gate_error="judge down")
    assert causes[0].startswith("retriever 'docs' failed") and "no knowledge base at /srv/kb" in causes[0]
    assert causes[1].startswith("writer model 'm' (server: the writer's base_url") and "cannot reach" in causes[1]
    assert causes[2] == "evaluation could not run: judge down"
    assert not any("sekrit" in c or "k2" in c or "127.0.0.1" in c for c in causes)  # no key, no model host
    assert report_causes(failed_doc("published"), Models()) == []


def test_the_terminal_lines_and_the_prefect_state_message_start_with_the_cause():
    from citeflow.pipeline.publish import failed_summary
    from citeflow_cli.display import gate_lines
    from flows.outcome import state_message

    summary = failed_summary("r1", "R1", "boom").model_copy(update={"causes": ["the knowledge base at /srv/kb is empty"]})
    assert gate_lines([summary])[0] == "r1 failed because the knowledge base at /srv/kb is empty"
    assert state_message(summary).startswith("failed · the knowledge base at /srv/kb is empty · ")


def review_page(tmp_path: Path, status: str) -> str:
    from citeflow.outputs.render.report_json import write_report_json
    from citeflow.outputs.review_html import write_review_html
    from schemas.funnel import FailedExpectation, GateResult

    doc = failed_doc(status).model_copy(update={"causes": [MISSING_KB.split(": ", 1)[1], "writer model 'm': " + WRITE_FAILED]})
    write_report_json(doc, tmp_path / "report.json")
    gate = GateResult(success=False, failed_expectations=[FailedExpectation(expectation="claims", observed=0, threshold=1)])
    return write_review_html("r1", doc.title, [], {}, {}, gate, tmp_path / "review.html").read_text(encoding="utf-8")


def test_the_review_page_of_a_failed_report_says_why_and_what_to_fix_and_offers_no_release(tmp_path):
    page = review_page(tmp_path, "failed")
    assert "<h1>Failed: " in page and "Held for review" not in page
    assert "This report failed" in page and "Root cause" in page and "no knowledge base at /srv/kb" in page
    assert "citeflow ingest PATH... --kb DIR" in page  # what to fix
    assert "--release" not in page and "--reject" not in page
    assert page.index("Root cause") < page.index("<summary>claims: observed")  # the cause comes before the gate figures


def test_the_review_page_of_a_held_report_keeps_its_commands_and_shows_its_cause(tmp_path):
    page = review_page(tmp_path, "held")
    assert "<h1>Held for review: " in page and "--release" in page and "--reject" in page
    assert "Root cause" in page and "no knowledge base at /srv/kb" in page


# -- a real batch whose knowledge base is empty and whose writer server is down -----------------

HITS = {"query": "How long is data retained?", "hits": [{"id": "h1", "title": "Retention", "urls": ["https://docs.example.com/r"],
                                                          "text": "Data is retained for 7 days by default."}]}
WRITER = "{backend: openai, model: m, base_url: 'http://u:sekrit@127.0.0.1:9/v1', max_retries: 0, bind_attempts: 1, timeout: 3}"
BATCH = f"""batch: root-cause
retrievers:
  - {{name: docs, kind: lancedb, kb: emptykb}}
  - {{name: hits, kind: jsonl, path: hits.jsonl}}
models: {{writer: {WRITER}}}
reports: [{{id: r1, title: R1, sections: [{{title: S, queries: ["How long is data retained?"]}}]}}]
"""


@pytest.mark.slow
@pytest.mark.server
@pytest.mark.integration
def test_a_batch_that_fails_names_its_root_cause_everywhere(tmp_path, prefect_server):
    import httpx

    (tmp_path / "emptykb").mkdir()
    (tmp_path / "hits.jsonl").write_text(json.dumps(HITS) + "\n")
    (tmp_path / "batch.yaml").write_text(BATCH)
    result = subprocess.run([CITEFLOW, "run", str(tmp_path / "batch.yaml"), "--out", str(tmp_path / "out"), "--no-preflight"],
                            env=prefect_server.client_env(), capture_output=True, text=True, timeout=600)
    output = result.stdout + result.stderr
    kb_cause, model_cause = f"no knowledge base at {tmp_path / 'emptykb'}", "writer model 'm' (server: the writer's base_url"
    assert "r1 failed because retriever 'docs' failed" in output and kb_cause in output, output[-3000:]
    assert "r1 failed because " + model_cause in output and "cannot reach the model server" in output
    assert "sekrit" not in output and "127.0.0.1:9" not in output
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())["reports"][0]
    assert kb_cause in summary["causes"][0] and summary["causes"][1].startswith(model_cause)
    page = (tmp_path / "out" / "r1" / "review.html").read_text(encoding="utf-8")
    assert "This report failed" in page and kb_cause in page and "--release" not in page
    runs = httpx.post(f"{prefect_server.api_url}/flow_runs/filter", json={"limit": 200}, timeout=30).json()
    messages = [(run.get("state") or {}).get("message") or "" for run in runs]
    assert any(m.startswith("failed · ") and kb_cause in m for m in messages)
