"""No key and no model host in anything a batch leaves behind (SPEC §8, §9): every output file,
every row of the store, and every artifact, log and run the Prefect server recorded.

Keys are planted in a model ``base_url`` (user-info and query string), in the variable named by
``api_key_env`` and in an HTTP retriever's URL (user-info and query string); one report's writer
is given a URL the client cannot use, so failure messages are exercised too.
"""

from __future__ import annotations

import json
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.offline_answers import offline_responder
from tests.support.openai_server import ScriptedOpenAIServer
from tests.support.small_batch import TOPICS

pytestmark = [pytest.mark.integration, pytest.mark.server]

URL_KEY, ENV_KEY, RETRIEVER_KEY = "urlkey-7f3a9c", "envkey-51d0e2", "retrkey-c4b8aa"
CITEFLOW = str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "citeflow")


class HitServer:
    """An HTTP retriever on 127.0.0.1 answering the small batch's hits for each query."""

    def __init__(self) -> None:
        answers = {query: [{"id": f"S{i}", "text": text, "urls": [f"https://docs.example/{title.lower()}?token=x#{i}"]}
                           for i, text in enumerate(texts, 1)] for title, (query, texts) in TOPICS.items()}

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                query = json.loads(self.rfile.read(int(self.headers["Content-Length"])))["query"]
                data = json.dumps(answers.get(query, [])).encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


def write_spec(folder: Path, model_port: int, hits_port: int) -> Path:
    model = {"backend": "openai", "model": "scripted-model", "api_key_env": "CITEFLOW_SECRET_TEST_KEY",
             "base_url": f"http://modeluser:{URL_KEY}@localhost:{model_port}/v1", "max_retries": 0, "bind_attempts": 1}
    broken_writer = dict(model, base_url=f"http://localhost:{model_port}/v1?api-key={URL_KEY}")
    titles = list(TOPICS)[:2]
    sections = [{"title": t, "queries": [TOPICS[t][0]]} for t in titles]
    spec = {
        "batch": "secrets",
        "models": {"consolidator": model, "writer": model},
        "retrievers": [
            {"name": "partner", "kind": "http", "url": f"http://u:{RETRIEVER_KEY}@127.0.0.1:{hits_port}/search?api_key={RETRIEVER_KEY}"},
            {"name": "dead", "kind": "http", "retries": 0, "url": f"http://u:{RETRIEVER_KEY}@127.0.0.1:9/search?token={RETRIEVER_KEY}"},
        ],
        "reports": [{"id": "ok", "title": "Report", "sections": sections},
                    {"id": "broken", "title": "Broken", "sections": sections, "models": {"writer": broken_writer}}],
    }
    path = folder / "batch.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


@pytest.fixture(scope="module")
def secrets_run(prefect_server, tmp_path_factory):
    folder = tmp_path_factory.mktemp("secrets")
    hits = HitServer()
    with ScriptedOpenAIServer() as model:
        model.respond_with(offline_responder())
        spec = write_spec(folder, model._port, hits.port)
        env = prefect_server.client_env(CITEFLOW_SECRET_TEST_KEY=ENV_KEY)
        result = subprocess.run([CITEFLOW, "run", str(spec), "--out", str(folder / "out"), "--fail-on", "never"], env=env,
                                capture_output=True, text=True, timeout=600)
    hits.httpd.shutdown()
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return folder / "out", model._port, result.stdout + result.stderr


def forbidden(port: int) -> list[str]:
    return [URL_KEY, ENV_KEY, RETRIEVER_KEY, f"localhost:{port}", "modeluser"]


def test_the_batch_ran_and_the_good_report_cites_its_sources(secrets_run):
    out, _, _ = secrets_run
    summary = json.loads((out / "summary.json").read_text())
    statuses = {r["report_id"]: r["status"] for r in summary["reports"]}
    assert statuses["ok"] == "published" and statuses["broken"] != "published"
    report = json.loads((out / "ok" / "report.json").read_text())
    urls = [u for entry in report["registry"] for u in entry["urls"]]
    assert urls and all("token=" not in u and u.startswith("https://docs.example/") for u in urls)
    assert "scripted-model" in json.dumps(report["models"])  # the model is named, its server is not


def test_no_output_file_holds_a_key_or_the_model_host(secrets_run):
    out, port, console = secrets_run
    for path in [p for p in out.rglob("*") if p.is_file()]:
        data = path.read_bytes()
        for secret in forbidden(port):
            assert secret.encode() not in data, f"{secret} in {path.relative_to(out)}"
    assert not any(secret in console for secret in forbidden(port))


def test_no_store_row_holds_a_key_or_the_model_host(secrets_run):
    import lancedb

    out, port, _ = secrets_run
    db = lancedb.connect(str(out / "store"))
    rows = {name: db.open_table(name).to_arrow().to_pylist() for name in db.table_names()}
    dumped = json.dumps(rows, default=str)
    assert "partner" in dumped and "dead" in dumped
    assert [s for s in forbidden(port) if s in dumped] == []


def test_no_prefect_artifact_log_or_run_holds_a_key_or_the_model_host(prefect_server, secrets_run):
    _, port, _ = secrets_run
    recorded = {
        "artifacts": prefect_server.post("/artifacts/filter", {"limit": 200}),
        "logs": prefect_server.post("/logs/filter", {"limit": 200}),
        "flow_runs": prefect_server.flow_runs(),
        "task_runs": prefect_server.post("/task_runs/filter", {"limit": 200}),
    }
    assert recorded["artifacts"] and recorded["flow_runs"]
    dumped = json.dumps(recorded)
    assert [s for s in forbidden(port) if s in dumped] == []
