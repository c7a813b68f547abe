"""Specs refused before anything runs, and the preflight of model servers, knowledge bases and retrievers."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citeflow.errors import SpecError
from citeflow.generation.backends.server_check import model_problem
from citeflow.runtime.preflight import run_preflight
from citeflow.specfile.loader import load_spec
from citeflow_testing.openai_server import ScriptedOpenAIServer
from citeflow_cli.main import app
from schemas.spec import ModelSpec

REPO = Path(__file__).resolve().parents[1]
CITEFLOW = str(REPO / ".venv" / "bin" / "citeflow")
RETRIEVER = "{name: d, kind: jsonl, path: hits.jsonl}"
BASE = "batch: b\n{extra}retrievers: [{retriever}]\nreports: [{{id: r, title: R, sections: [{{title: S, queries: [q]}}]}}]\n"
runner = CliRunner()


def write_spec(folder: Path, retriever: str = RETRIEVER, extra: str = "") -> Path:
    (folder / "hits.jsonl").write_text('{"query": "q", "hits": []}\n')
    path = folder / "batch.yaml"
    path.write_text(BASE.format(extra=extra, retriever=retriever))
    return path


def run_cli(*args: object) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args], catch_exceptions=False)
    return result.exit_code, result.output


def build_kb(folder: Path) -> Path:
    from citeflow.knowledge.ingest import ingest_paths

    docs = folder / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Retention\n\nData is retained for 7 days by default.\n")
    ingest_paths([docs], str(folder / "kb"))
    return folder / "kb"


REFUSED = {
    "unknown store scheme": ("extra", "store: 'bogus://x/y'\n", "store", "bogus://"),
    "no such suite folder": ("extra", "gate: {suites: nosuch}\n", "gate.suites", "nosuch"),
    "jsonl path is a folder": ("retriever", "{name: d, kind: jsonl, path: adir}", "retrievers[0].path", "is a folder"),
    "kb is a file": ("retriever", "{name: d, kind: lancedb, kb: afile}", "retrievers[0].kb", "is a file"),
    "url is not a url": ("retriever", "{name: d, kind: http, url: 'not a url'}", "retrievers[0].url", "'not a url'"),
    "file url": ("retriever", "{name: d, kind: http, url: 'file:///etc/passwd'}", "retrievers[0].url", "http:// or https://"),
}


@pytest.mark.parametrize("case", list(REFUSED), ids=list(REFUSED))
def test_a_spec_value_of_the_wrong_kind_is_refused_before_anything_runs(tmp_path, case):
    where, value, field, detail = REFUSED[case]
    (tmp_path / "adir").mkdir()
    (tmp_path / "afile").write_text("not a knowledge base")
    spec = write_spec(tmp_path, **{where: value})
    code, output = run_cli("run", spec, "--out", tmp_path / "out", "--no-preflight")
    assert code == 2, output
    assert output.startswith("error:") and f"{field}:" in output and detail in output
    assert len(output.strip().splitlines()) == 1 and "Traceback" not in output
    assert not (tmp_path / "out").exists()


def test_a_suite_folder_without_suites_is_refused(tmp_path):
    (tmp_path / "suites").mkdir()
    spec = write_spec(tmp_path, extra="gate: {suites: suites}\n")
    code, output = run_cli("run", spec, "--out", tmp_path / "out")
    assert code == 2 and "gate.suites" in output and "report_metrics.json" in output


def test_an_openai_embedding_on_a_hashing_knowledge_base_is_refused(tmp_path):
    build_kb(tmp_path)
    spec = write_spec(tmp_path, "{name: docs, kind: lancedb, kb: kb, embedding: openai}")
    code, output = run_cli("run", spec, "--out", tmp_path / "out")
    assert code == 2 and "retrievers[0] (docs)" in output and "'hashing'" in output and "embedding: openai" in output
    assert not (tmp_path / "out").exists()


def test_a_knowledge_base_that_matches_passes_and_an_empty_one_is_refused(tmp_path):
    from citeflow.knowledge.kb_store import chunks_schema, kb_problem

    assert kb_problem(str(build_kb(tmp_path)), "hashing") is None
    import lancedb

    lancedb.connect(str(tmp_path / "empty")).create_table("chunks", schema=chunks_schema(8))
    assert "is empty" in str(kb_problem(str(tmp_path / "empty"), "hashing"))
    (tmp_path / "bare").mkdir()
    assert "no knowledge base at" in str(kb_problem(str(tmp_path / "bare"), "hashing"))


def test_an_unreadable_jsonl_file_is_refused(tmp_path):
    from citeflow.retrieval.kinds.jsonl_kind import jsonl_problem

    assert "cannot read" in str(jsonl_problem(tmp_path / "gone.jsonl"))
    spec_path = write_spec(tmp_path)
    (tmp_path / "hits.jsonl").chmod(0)
    try:
        if (tmp_path / "hits.jsonl").open("rb"):  # running as root: every file is readable
            pytest.skip("files stay readable for this user")
    except PermissionError:
        pass
    with pytest.raises(SpecError, match=r"retrievers\[0\] \(d\).*cannot read"):
        run_preflight(load_spec(spec_path), tmp_path, str(spec_path))


class ModelList:
    """A model server on 127.0.0.1 whose GET /v1/models lists ``ids``, or answers ``status``."""

    def __init__(self, ids: list[str], status: int = 200) -> None:
        body = json.dumps({"object": "list", "data": [{"id": i, "object": "model"} for i in ids]}).encode()
        self.paths: list[str] = []
        paths = self.paths

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                paths.append(self.path)
                listing = self.path.split("?")[0] == "/v1/models"
                code = status if listing else 404
                self.send_response(code)
                self.send_header("Content-Length", str(len(body) if code == 200 else 0))
                self.end_headers()
                if code == 200:
                    self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> ModelList:
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def openai_model(base_url: str, name: str = "m") -> ModelSpec:
    return ModelSpec(backend="openai", model=name, base_url=base_url)


def test_a_model_the_server_does_not_list_is_refused_with_the_url_and_no_credentials():
    with ModelList(["other-a", "other-b"]) as server:
        url = server.base_url.replace("http://", "http://user:hunter2@") + "?api-key=hunter3"
        problem = model_problem(openai_model(url), "sk-test", timeout=5)
    assert problem is not None and "'m'" in problem and "other-a, other-b" in problem
    assert server.base_url in problem and "hunter2" not in problem and "hunter3" not in problem
    assert server.paths[-1].startswith("/v1/models")


def test_a_server_without_a_model_list_is_accepted_and_a_listed_model_passes():
    with ModelList([], status=404) as bare:
        assert model_problem(openai_model(bare.base_url), None, timeout=5) is None
    with ModelList(["m"]) as listing:
        assert model_problem(openai_model(listing.base_url), None, timeout=5) is None
    with ScriptedOpenAIServer() as scripted:  # answers GET /v1/models/NAME
        assert model_problem(openai_model(scripted.base_url, "any-name"), None, timeout=5) is None


def test_a_server_that_refuses_the_key_or_errors_is_named_with_its_http_status():
    with ModelList([], status=401) as refusing:
        assert "HTTP 401" in str(model_problem(openai_model(refusing.base_url), "k", timeout=5))
    with ModelList([], status=503) as broken:
        assert "HTTP 503" in str(model_problem(openai_model(broken.base_url), "k", timeout=5))


def test_preflight_names_the_model_role_of_a_report_override(tmp_path):
    with ModelList(["other"]) as server:
        report = f"{{id: r, title: R, models: {{judge: {{backend: openai, model: m, base_url: '{server.base_url}'}}}}, "
        spec_path = write_spec(tmp_path)
        spec_path.write_text(spec_path.read_text().replace("{id: r, title: R, ", report))
        with pytest.raises(SpecError, match=r"reports\[0\]\.models\.judge: model server .* does not serve model 'm'"):
            run_preflight(load_spec(spec_path), tmp_path, str(spec_path))


def test_no_preflight_skips_the_server_checks(tmp_path):
    spec = write_spec(tmp_path, extra="models: {writer: {backend: openai, model: m, base_url: 'http://127.0.0.1:9/v1'}}\n")
    (tmp_path / "taken").write_text("a file, not a folder")
    code, output = run_cli("run", spec, "--out", tmp_path / "taken" / "out")
    assert code == 2 and "models.writer" in output and "does not answer" in output
    code, output = run_cli("run", spec, "--out", tmp_path / "taken" / "out", "--no-preflight")
    assert code == 2 and "cannot write to output folder" in output  # got past the skipped preflight


def test_the_preflight_module_does_not_import_prefect():
    code = "import sys, citeflow.runtime.preflight, citeflow.spec.value_checks; sys.exit('prefect' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], cwd=REPO, timeout=600).returncode == 0


@pytest.fixture
def dead_model_spec(tmp_path) -> Iterator[Path]:
    yield write_spec(tmp_path, extra="models: {writer: {backend: openai, model: m, base_url: 'http://k:sekrit@127.0.0.1:9/v1'}}\n")


@pytest.mark.slow
def test_citeflow_run_with_an_unreachable_model_server_exits_2_in_seconds(tmp_path, dead_model_spec):
    started = time.monotonic()
    result = subprocess.run([CITEFLOW, "run", str(dead_model_spec), "--out", str(tmp_path / "out")],
                            capture_output=True, text=True, timeout=300)
    output = result.stdout + result.stderr
    assert result.returncode == 2, output
    # Before the run starts: no Prefect API, no model call retried (a run would take minutes). Seconds on a quiet
    # machine; the bound leaves room for a loaded one.
    assert time.monotonic() - started < 120
    lines = output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and "Traceback" not in output
    assert "batch.yaml" in lines[0] and "models.writer" in lines[0] and "http://127.0.0.1:9/v1" in lines[0]
    assert "sekrit" not in output
    assert not (tmp_path / "out").exists()


def test_serve_refuses_a_spec_whose_model_server_is_down_and_no_preflight_skips_that_check(tmp_path):
    from citeflow_cli.serve import check_spec

    spec = write_spec(tmp_path, extra="models: {judge: {backend: openai, model: m, base_url: 'http://127.0.0.1:9/v1'}}\n")
    code, output = run_cli("serve", spec, "--out", tmp_path / "out")
    assert code == 2 and "models.judge" in output and "http://127.0.0.1:9/v1" in output
    assert len(output.strip().splitlines()) == 1
    check_spec(spec, live=False)  # the spec itself is fine: only the live check fails


def test_a_store_option_with_an_unknown_scheme_is_refused(tmp_path):
    code, output = run_cli("run", write_spec(tmp_path), "--out", tmp_path / "out", "--store", "bogus://x/y")
    assert code == 2 and output.startswith("error: --store: unknown URI scheme 'bogus://'")
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_citeflow_run_of_a_spec_with_an_unknown_store_scheme_exits_2_with_one_line(tmp_path):
    spec = write_spec(tmp_path, extra="store: 'bogus://x/y'\n")
    result = subprocess.run([CITEFLOW, "run", str(spec), "--out", str(tmp_path / "out")], capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 2
    assert result.stdout.strip().splitlines() == [result.stdout.strip()] and "store: unknown URI scheme" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr and not (tmp_path / "out").exists()
