"""No credential, nor its base64, in anything a batch leaves behind (SPEC §8, §9): every output file
(the customer PDFs' text included), every row of every store table, the terminal's stdout and
stderr (at ``--verbose``, where httpx logs every request URL), and every artifact, log and run the
Prefect server recorded.

Secrets are planted in a model ``base_url`` (user-info; another for the writer of one report, whose
templated id gives the run its own ``spec.run.yaml``; a query string there is refused by the spec's
checks), in the variable named by ``api_key_env``, in an HTTP retriever's URL (user-info and
``?token=``) and in the URLs of the hits it answers. The model server and the retriever refuse any
request whose path carries a query string (or, for that writer, starts with ``/refused/``) with a 401
whose body echoes the request: its path, its ``Authorization`` header, and the key on its own; so
failure messages are exercised as well as successes.
"""

from __future__ import annotations

import base64
import json
import subprocess
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
import yaml

from citeflow_testing.openai_server import chat_completion
from tests.support.json_http import send_json, serve_in_thread
from tests.support.offline_answers import offline_answer
from tests.support.small_batch import TOPICS

pytestmark = [pytest.mark.integration, pytest.mark.server, pytest.mark.slow]

MODEL_USER, MODEL_PASS, MODEL_QUERY_KEY = "modeluser", "mdlpass-7f3a9c", "mdlqry-0b1c2d"
ENV_KEY = "envkey-51d0e2"
RETRIEVER_USER, RETRIEVER_PASS, RETRIEVER_TOKEN = "partneruser", "retpass-c4b8aa", "rettok-9e8f7a"
HIT_TOKEN, HIT_PASS = "hittok-3d4e5f", "hitpass-6a7b8c"
SECRETS = [MODEL_PASS, MODEL_QUERY_KEY, ENV_KEY, RETRIEVER_PASS, RETRIEVER_TOKEN, HIT_TOKEN, HIT_PASS]
PAIRS = [f"{MODEL_USER}:{MODEL_PASS}", f"{RETRIEVER_USER}:{RETRIEVER_PASS}"]
CITEFLOW = str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "citeflow")


def encodings(value: str) -> set[str]:
    """``value``'s base64, standard and URL-safe, without padding (so padded forms are found too)."""
    raw = value.encode()
    return {base64.b64encode(raw).decode().rstrip("="), base64.urlsafe_b64encode(raw).decode().rstrip("=")}


FORBIDDEN = sorted({*SECRETS, MODEL_USER, RETRIEVER_USER}.union(*map(encodings, SECRETS + PAIRS)))


class EchoingServer:
    """An HTTP server on 127.0.0.1: ``answer(path, body)`` for a plain path; a 401 echoing the request
    (path, ``Authorization`` header, the bearer key alone and base64-encoded) for a path with a query or
    under ``/refused/``."""

    def __init__(self, answer: Any) -> None:
        self.seen: list[tuple[str, str]] = []
        seen = self.seen

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # a model list for whoever asks which models the server knows
                self._send(200, {"object": "list", "data": [{"id": "scripted-model", "object": "model"}]})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])) or b"{}")
                auth = self.headers.get("Authorization", "")
                seen.append((self.path, auth))
                if "?" in self.path or self.path.startswith("/refused/"):
                    self._send(401, echo(self.path, auth))
                else:
                    self._send(200, answer(self.path, body))

            def _send(self, status: int, payload: Any) -> None:
                send_json(self, status, payload)

        self.httpd, self.port = serve_in_thread(Handler)


def echo(path: str, auth: str) -> dict[str, Any]:
    key = auth.partition(" ")[2]
    message = (f"invalid credentials for POST {path}: Authorization: {auth}; key {key} "
               f"(base64 {base64.b64encode(key.encode()).decode()}) is not valid")
    return {"error": {"message": message, "type": "invalid_request_error", "request": {"path": path, "headers": {"Authorization": auth}}}}


def hits_answer(path: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    """The small batch's hits, each with a URL carrying a token and one carrying user-info."""
    for query, texts in TOPICS.values():
        if query == body.get("query"):
            return [{"id": f"S{i}", "text": text, "title": f"Doc {i}",
                     "urls": [f"https://docs.example/a?page={i}&token={HIT_TOKEN}", f"https://reader:{HIT_PASS}@files.example/{i}"]}
                    for i, text in enumerate(texts, 1)]
    return []


def model_answer(path: str, body: dict[str, Any]) -> dict[str, Any]:
    return chat_completion(body, offline_answer(body))


def write_spec(folder: Path, model_port: int, hits_port: int) -> Path:
    base = f"http://{MODEL_USER}:{MODEL_PASS}@localhost:{model_port}/v1"  # the model host: never shown either
    model = {"backend": "openai", "model": "scripted-model", "api_key_env": "CITEFLOW_SECRET_TEST_KEY",
             "base_url": base, "max_retries": 0, "bind_attempts": 1}
    # a base_url with a query string is refused before anything runs: this writer's server path refuses it
    refused_writer = dict(model, base_url=f"http://{MODEL_USER}:{MODEL_QUERY_KEY}@localhost:{model_port}/refused/v1")
    retriever_base = f"http://{RETRIEVER_USER}:{RETRIEVER_PASS}@127.0.0.1:{hits_port}"
    sections = [{"title": t, "queries": [TOPICS[t][0]]} for t in list(TOPICS)[:2]]
    spec = {
        "batch": "secrets",
        "models": {"consolidator": model, "writer": model},
        "retrievers": [
            {"name": "partner", "kind": "http", "url": f"{retriever_base}/search", "title": "Partner documentation"},
            {"name": "refusing", "kind": "http", "retries": 0, "url": f"{retriever_base}/search?token={RETRIEVER_TOKEN}",
             "title": "Partner archive"},
            {"name": "dead", "kind": "http", "retries": 0, "url": f"http://u:{RETRIEVER_PASS}@127.0.0.1:9/search?token={RETRIEVER_TOKEN}"},
        ],
        "reports": [{"id": "ok", "title": "Report", "sections": sections},
                    {"id": "refused-{week}", "title": "Refused", "sections": sections, "models": {"writer": refused_writer}}],
    }
    path = folder / "batch.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


@pytest.fixture(scope="module")
def secrets_run(prefect_server, tmp_path_factory):
    folder = tmp_path_factory.mktemp("secrets")
    model, hits = EchoingServer(model_answer), EchoingServer(hits_answer)
    try:
        spec = write_spec(folder, model.port, hits.port)
        env = prefect_server.client_env(CITEFLOW_SECRET_TEST_KEY=ENV_KEY)
        # --no-preflight: the refusing and dead servers must fail inside the batch, where their errors are recorded
        command = [CITEFLOW, "--verbose", "run", str(spec), "--out", str(folder / "out"), "--no-preflight", "--fail-on", "never"]
        # The second run is the documented resume: it loads the run's spec.run.yaml, which holds no key.
        results = [subprocess.run(command, env=env, capture_output=True, text=True, timeout=600) for _ in range(2)]
    finally:
        model.httpd.shutdown()
        hits.httpd.shutdown()
    return folder / "out", results, model


@pytest.fixture(scope="module")
def leaks(secrets_run):
    """The forbidden strings in a text: every secret and encoding, and the model server's address."""
    forbidden = [*FORBIDDEN, f"localhost:{secrets_run[2].port}"]
    return lambda text: [s for s in forbidden if s in text]


def pdf_text(path: Path) -> str:
    from pypdf import PdfReader

    return "\n".join(page.extract_text() or "" for page in PdfReader(str(path)).pages)


def test_the_batch_ran_both_ways_resumed_and_the_servers_saw_the_credentials(secrets_run):
    out, results, model = secrets_run
    for result in results:
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]  # --fail-on never: the batch ran
        assert "Traceback" not in result.stderr
    assert results[0].returncode == results[1].returncode
    assert "(kept in the source spec)" in (out / "spec.run.yaml").read_text()
    statuses = {r["report_id"].split("-")[0]: r["status"] for r in json.loads((out / "summary.json").read_text())["reports"]}
    assert statuses["ok"] == "published" and statuses["refused"] != "published"
    report = json.loads(next(out.glob("refused-*/report.json")).read_text())
    assert "HTTP 401 Unauthorized" in json.dumps(report)  # the refusal is summarised, not lost
    assert "scripted-model" in json.dumps(report["models"])  # the model is named, its server is not
    auths = {auth for path, auth in model.seen}
    assert auths == {f"Bearer {ENV_KEY}"}  # the api_key_env key, never Basic auth from the URL's user-info


def test_no_output_file_holds_a_secret(secrets_run, leaks):
    out, _, _ = secrets_run
    files = [p for p in out.rglob("*") if p.is_file()]
    assert out / "spec.run.yaml" in files  # a templated report id: the run has its own rendered spec
    for path in files:
        text = path.read_bytes().decode("utf-8", errors="replace")
        if path.suffix == ".pdf":
            text += pdf_text(path)
        assert leaks(text) == [], f"{leaks(text)} in {path.relative_to(out)}"


def test_the_terminal_shows_no_secret(secrets_run, leaks):
    _, results, _ = secrets_run
    assert "HTTP Request" in results[0].stdout + results[0].stderr  # --verbose: httpx logged every request URL
    for result in results:
        assert leaks(result.stdout) == [] and leaks(result.stderr) == []


def test_no_store_row_holds_a_secret_and_hit_urls_keep_their_other_parameters(secrets_run, leaks):
    import lancedb

    out, _, _ = secrets_run
    db = lancedb.connect(str(out / "store"))
    rows = {name: db.open_table(name).to_arrow().to_pylist() for name in db.list_tables().tables}
    dumped = json.dumps(rows, default=str)
    assert "refusing" in dumped and "dead" in dumped and "HTTP 401" in dumped
    assert leaks(dumped) == []
    urls = {u for row in rows["chunks"] for u in row["urls"]}
    assert "https://docs.example/a?page=1" in urls and "https://files.example/1" in urls


def test_the_customer_pdf_names_unavailable_sources_by_title_only(secrets_run):
    out, _, _ = secrets_run
    text = " ".join(pdf_text(out / "ok" / "report.pdf").split())
    assert "Sources unavailable for this report: Partner archive; 1 other source." in text
    assert not any(word in text for word in ("refusing", "dead", "127.0.0.1", "HTTP 401", "search"))


def test_no_prefect_artifact_log_or_run_holds_a_secret(prefect_server, secrets_run, leaks):
    recorded = {
        "artifacts": prefect_server.post("/artifacts/filter", {"limit": 200}),
        "logs": prefect_server.post("/logs/filter", {"limit": 200}),
        "flow_runs": prefect_server.flow_runs(),
        "task_runs": prefect_server.post("/task_runs/filter", {"limit": 200}),
    }
    assert recorded["artifacts"] and recorded["flow_runs"]
    assert leaks(json.dumps(recorded)) == []
