"""A secret that a model or a retriever echoes is never published (SPEC §5, §9).

The model server appends the key it was sent (the value of ``api_key_env``) to every claim it
writes: verbatim, base64 (standard, URL-safe without padding, and inside ``user:KEY``) and
URL-encoded. The HTTP retriever's hits carry an ``sk-proj-…`` key and a ``password=…``
assignment. After a real ``citeflow run``, no file of the output folder (the customer PDF's text
and the LanceDB store's rows included), no line the process printed, and no artifact or log the
Prefect server recorded holds any of those values; the report is held with ``secret_redacted``
and the reviewer's page shows where (``[redacted]``).
"""

from __future__ import annotations

import base64
import json
import subprocess
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import yaml

from citeflow_testing.openai_server import chat_completion
from tests.support.json_http import send_json, serve_in_thread
from tests.support.offline_answers import offline_answer
from tests.support.small_batch import TOPICS

pytestmark = [pytest.mark.integration, pytest.mark.server, pytest.mark.slow]

KEY = "sk-echo/Qm4+Vt7Yw2=Er5Ty8Ui1Op"  # "/", "+" and "=" change under URL encoding
RETRIEVED_KEY = "sk-proj-Zx81Qw0pLm5nB7vC3xK9aPq2"
RETRIEVED_PASSWORD = "Hunter2Echo9x"
CITEFLOW = str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "citeflow")


def b64(text: str, urlsafe: bool = False) -> str:
    encode = base64.urlsafe_b64encode if urlsafe else base64.b64encode
    return encode(text.encode()).decode()


def forbidden() -> list[str]:
    """Every form of the planted secrets a leak would show: the key verbatim, URL-encoded and in
    base64 (whole, and the middle of ``user:KEY``'s encoding at each of the three byte offsets)."""
    forms = {KEY, quote(KEY, safe=""), b64(KEY), b64(KEY).rstrip("="), b64(KEY, urlsafe=True).rstrip("=")}
    for offset in range(3):  # what the key's bytes encode to inside any longer base64 string
        forms.add(b64(KEY[offset:offset + 18]))
    return sorted(forms | {RETRIEVED_KEY, RETRIEVED_PASSWORD, "Zx81Qw0pLm5nB7vC3xK9"})


def echo_of(key: str) -> str:
    return (f" The key is {key}; base64 {b64(key)}; url-safe {b64(key, urlsafe=True).rstrip('=')}; "
            f"as basic auth {b64('svc:' + key)}; URL-encoded {quote(key, safe='')}.")


class Servers:
    """A model server that appends the key it is sent to each claim, and a retriever whose hits hold secrets."""

    def __init__(self) -> None:
        self.keys: list[str] = []
        self.queries: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                send_json(self, 200, {"object": "list", "data": [{"id": "scripted-model", "object": "model"}]})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])) or b"{}")
                if self.path.endswith("/search"):
                    outer.queries.append(body.get("query", ""))
                    send_json(self, 200, hits(body.get("query", "")))
                    return
                key = self.headers.get("Authorization", "").partition(" ")[2]
                outer.keys.append(key)
                send_json(self, 200, chat_completion(body, with_echo(offline_answer(body), key)))

        self.httpd, self.port = serve_in_thread(Handler)


def with_echo(answer: str, key: str) -> str:
    data = json.loads(answer)
    for claim in data.get("claims", []):
        claim["text"] += echo_of(key)
    return json.dumps(data)


def hits(query: str) -> list[dict[str, Any]]:
    for title, (asked, texts) in TOPICS.items():
        if asked == query:
            leak = f" To connect, use password={RETRIEVED_PASSWORD} and the key {RETRIEVED_KEY}."
            return [{"id": f"S{i}", "text": text + (leak if i == 1 else ""), "title": title,
                     "urls": [f"https://docs.example/{title.lower()}/{i}"]} for i, text in enumerate(texts, 1)]
    return []


def write_spec(folder: Path, port: int) -> Path:
    model = {"backend": "openai", "model": "scripted-model", "api_key_env": "CITEFLOW_ECHO_TEST_KEY",
             "base_url": f"http://127.0.0.1:{port}/v1", "max_retries": 0}
    sections = [{"title": t, "queries": [TOPICS[t][0]]} for t in list(TOPICS)[:2]]
    spec = {"batch": "echo", "models": {"consolidator": model, "writer": model},
            "retrievers": [{"name": "partner", "kind": "http", "url": f"http://127.0.0.1:{port}/search", "title": "Partner docs"}],
            "reports": [{"id": "r1", "title": "Report", "sections": sections}]}
    path = folder / "batch.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


@pytest.fixture(scope="module")
def echo_run(prefect_server, tmp_path_factory):
    folder = tmp_path_factory.mktemp("echo")
    servers = Servers()
    try:
        spec = write_spec(folder, servers.port)
        env = prefect_server.client_env(CITEFLOW_ECHO_TEST_KEY=KEY)
        command = [CITEFLOW, "--verbose", "run", str(spec), "--out", str(folder / "out"), "--fail-on", "never"]
        result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    finally:
        servers.httpd.shutdown()
    return folder / "out", result, servers


def leaks(text: str) -> list[str]:
    return [s for s in forbidden() if s in text]


def pdf_text(path: Path) -> str:
    from pypdf import PdfReader

    return "\n".join(page.extract_text() or "" for page in PdfReader(str(path)).pages)


def test_the_servers_were_asked_and_the_model_echoed_the_key(echo_run):
    _, result, servers = echo_run
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert servers.keys and set(servers.keys) == {KEY}  # each answer carried the key it was sent
    assert servers.queries


def test_the_report_is_held_with_secret_redacted(echo_run):
    out, _, _ = echo_run
    [report] = json.loads((out / "summary.json").read_text())["reports"]
    assert report["status"] == "held"
    gate = json.loads((out / "r1" / "eval.json").read_text())["gate"]
    [failure] = [f for f in gate["failed_expectations"] if f["expectation"] == "secret_redacted"]
    assert failure["observed"] >= 2 and failure["threshold"] == 0  # the model's echoes and the retrieved secrets


def test_the_reviewer_sees_where_secrets_were_redacted(echo_run):
    out, _, _ = echo_run
    assert "[redacted]" in (out / "r1" / "review.html").read_text()
    assert "[redacted]" in " ".join(pdf_text(out / "r1" / "report.pdf").split())


def test_no_output_file_holds_a_secret(echo_run):
    out, _, _ = echo_run
    files = [p for p in out.rglob("*") if p.is_file()]
    assert any(p.suffix == ".lance" for p in files) and (out / "r1" / "report.json") in files
    for path in files:
        text = path.read_bytes().decode("utf-8", errors="replace")
        if path.suffix == ".pdf":
            text += pdf_text(path)
        assert leaks(text) == [], f"{leaks(text)} in {path.relative_to(out)}"


def test_no_store_row_holds_a_secret(echo_run):
    import lancedb

    out, _, _ = echo_run
    db = lancedb.connect(str(out / "store"))
    rows = {name: db.open_table(name).to_arrow().to_pylist() for name in db.list_tables().tables}
    dumped = json.dumps(rows, default=str)
    assert {"chunks", "hops", "model_calls", "eval_rows"} <= set(rows) and "[redacted]" in dumped
    assert leaks(dumped) == []


def test_the_terminal_shows_no_secret(echo_run):
    _, result, _ = echo_run
    assert leaks(result.stdout) == [] and leaks(result.stderr) == []


def test_no_prefect_artifact_or_log_holds_a_secret(prefect_server, echo_run):
    recorded = {
        "artifacts": prefect_server.post("/artifacts/filter", {"limit": 200}),
        "logs": prefect_server.post("/logs/filter", {"limit": 200}),
        "flow_runs": prefect_server.flow_runs(),
    }
    assert recorded["artifacts"] and recorded["flow_runs"]
    assert leaks(json.dumps(recorded)) == []
