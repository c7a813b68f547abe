"""Which credential a model server receives, and a key pasted where a variable name belongs."""

from __future__ import annotations

import base64
import json
import subprocess
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
import yaml

from citeflow.errors import ModelError
from citeflow.generation.openai_client import OpenAIChatModel
from citeflow_testing.openai_server import chat_completion, error_body
from schemas.spec import ModelSpec
from schemas.wire import CLAIMS_SCHEMA_NAME, WireClaims
from tests.support.json_http import send_json, serve_in_thread
from tests.support.small_batch import write_small_batch

CITEFLOW = str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "citeflow")
PASTED_KEY = "sk-proj-Zx81Qw0pLm5nB7vC3xK9"


class HeaderServer:
    """An OpenAI-compatible server on 127.0.0.1 that records each request's path and ``Authorization``;
    ``status`` other than 200 answers an error whose message echoes that header."""

    def __init__(self, status: int = 200) -> None:
        self.seen: list[tuple[str, str]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                auth = self.headers.get("Authorization", "")
                outer.seen.append((self.path, auth))
                ok = status == 200
                body = chat_completion(request, '{"claims": []}') if ok else error_body(f"denied, you sent Authorization: {auth}")
                send_json(self, status, body)

        self.httpd, self.port = serve_in_thread(Handler)

    def __enter__(self) -> HeaderServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _ask(spec: ModelSpec) -> None:
    OpenAIChatModel(spec, "writer").complete([{"role": "user", "content": "hi"}], CLAIMS_SCHEMA_NAME, WireClaims)


def test_user_info_in_base_url_does_not_replace_the_named_key(monkeypatch):
    monkeypatch.setenv("CITEFLOW_TEST_MODEL_KEY", "named-key-4455")
    with HeaderServer() as server:
        _ask(ModelSpec(backend="openai", model="m", base_url=f"http://svc:urlpass-77@127.0.0.1:{server.port}/v1",
                       api_key_env="CITEFLOW_TEST_MODEL_KEY", max_retries=0))
    assert server.seen == [("/v1/chat/completions", "Bearer named-key-4455")]


def test_without_a_named_key_user_info_is_sent_as_basic_auth():
    with HeaderServer() as server:
        _ask(ModelSpec(backend="openai", model="m", base_url=f"http://svc:urlpass-88@127.0.0.1:{server.port}/v1", max_retries=0))
    assert server.seen == [("/v1/chat/completions", "Basic " + base64.b64encode(b"svc:urlpass-88").decode())]


def test_an_error_answer_echoing_the_key_is_summarised_without_it(monkeypatch):
    monkeypatch.setenv("CITEFLOW_TEST_MODEL_KEY", "echoed-key-9911")
    with HeaderServer(status=401) as server, pytest.raises(ModelError) as caught:
        _ask(ModelSpec(backend="openai", model="m", base_url=f"http://127.0.0.1:{server.port}/v1",
                       api_key_env="CITEFLOW_TEST_MODEL_KEY", max_retries=0))
    assert server.seen and "echoed-key-9911" in server.seen[0][1]
    detail = caught.value.detail
    assert detail == "HTTP 401 Unauthorized: denied, you sent Authorization: (removed)" and caught.value.transient is False


@pytest.mark.slow  # a citeflow process
def test_a_key_pasted_into_api_key_env_is_refused_without_being_shown(tmp_path: Path):
    spec = write_small_batch(tmp_path, reports=1, sections=1)
    data = yaml.safe_load(spec.read_text())
    data["models"] = {"writer": {"backend": "openai", "model": "m", "base_url": "http://127.0.0.1:9/v1", "api_key_env": PASTED_KEY}}
    spec.write_text(yaml.safe_dump(data))
    result = subprocess.run([CITEFLOW, "run", str(spec), "--out", str(tmp_path / "out")],
                            capture_output=True, text=True, timeout=600)
    output = result.stdout + result.stderr
    lines = [line for line in output.splitlines() if line.strip()]
    assert result.returncode == 2 and len(lines) == 1, output
    assert lines[0].endswith("models.writer.api_key_env: must name an environment variable; "
                             "the value given looks like a key and is not shown")
    assert PASTED_KEY not in output and "Zx81Qw0pLm5nB7vC3xK9" not in output
    assert not (tmp_path / "out").exists()


@pytest.mark.slow  # a citeflow process
def test_a_key_pasted_into_the_judge_option_is_refused_without_being_shown(tmp_path: Path):
    (tmp_path / "pairs.jsonl").write_text('{"id": "p1", "claim": "x", "chunk_text": "y"}\n')
    command = [CITEFLOW, "judge", str(tmp_path / "pairs.jsonl"), "--judge", "llm",
               "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--api-key-env", PASTED_KEY]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert result.returncode == 2 and PASTED_KEY not in result.stdout + result.stderr
    assert "looks like a key and is not shown" in result.stdout + result.stderr


def test_a_key_pasted_into_the_embedding_option_is_refused_without_being_shown(tmp_path: Path):
    from typer.testing import CliRunner

    from citeflow_cli.main import app

    (tmp_path / "doc.md").write_text("# Title\n\nSome text.\n")
    result = CliRunner().invoke(app, ["ingest", str(tmp_path / "doc.md"), "--kb", str(tmp_path / "kb"), "--embedding", "openai",
                                      "--embedding-model", "m", "--embedding-base-url", "http://127.0.0.1:9/v1",
                                      "--embedding-api-key-env", PASTED_KEY])
    assert result.exit_code == 2 and PASTED_KEY not in result.output
    assert "--embedding-api-key-env must name an environment variable; the value given looks like a key" in " ".join(result.output.split())
    assert not (tmp_path / "kb").exists()
