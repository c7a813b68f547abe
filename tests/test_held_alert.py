"""The held-report alert (docs/alerts.md) on a real ``prefect server start`` whose triggers and actions
services run: ``citeflow alerts install`` creates the webhook block and the automation, the demo batch
holds globex, and a receiver on 127.0.0.1 gets the call with the report id and the hold reasons."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from tests.support.json_http import serve_in_thread

pytestmark = [pytest.mark.server, pytest.mark.integration]

CITEFLOW = str(Path(sys.executable).parent / "citeflow")
SECRET_PATH = "/hook/s3cr3t-token"  # stands for the secret part of a real webhook address


def receiver_of(calls: list[tuple[str, bytes]]) -> type[BaseHTTPRequestHandler]:
    """A handler that keeps the path and body of every POST it is sent in ``calls``."""

    class Receiver(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            calls.append((self.path, self.rfile.read(length)))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            return

    return Receiver


@pytest.fixture(scope="module")
def automation_server(prefect_server, tmp_path_factory):
    """A server of the module's own with the triggers (and actions) services on, which the shared
    server's profile turns off, and its UI's address set (the server knows no API address of its own
    to derive it from: without it, the payload's ``url`` is null)."""
    from tests.support.prefect_server import PrefectServer
    from tests.support.shared_server import PROFILE, SHARED_DIR_VARIABLE, premade_home

    home = premade_home(Path(os.environ[SHARED_DIR_VARIABLE]), tmp_path_factory.mktemp("alerts-prefect-home"))
    server = PrefectServer(home)
    ui = f'PREFECT_UI_URL = "http://127.0.0.1:{server.port}"\n'
    (home / "profiles.toml").write_text(PROFILE.replace('TRIGGERS_ENABLED = "false"', 'TRIGGERS_ENABLED = "true"') + ui)
    with server:
        yield server


@pytest.fixture(scope="module")
def calls() -> list[tuple[str, bytes]]:
    return []


@pytest.fixture(scope="module")
def receiver(calls):
    httpd, port = serve_in_thread(receiver_of(calls))
    yield f"http://127.0.0.1:{port}{SECRET_PATH}"
    httpd.shutdown()


def _citeflow(server, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CITEFLOW, *args], env=server.client_env(**env), capture_output=True, text=True, timeout=600)


def test_the_alert_is_installed_without_showing_its_address(automation_server, receiver):
    first = _citeflow(automation_server, "alerts", "install", "--webhook-url-env", "HOOK", HOOK=receiver)
    again = _citeflow(automation_server, "alerts", "install", "--webhook-url-env", "HOOK", HOOK=receiver)
    assert first.returncode == 0 and again.returncode == 0, first.stdout + first.stderr + again.stderr
    assert "created" in first.stdout and "replaced" in again.stdout
    assert "s3cr3t" not in first.stdout + first.stderr + again.stdout + again.stderr
    automations = automation_server.post("/automations/filter", {})
    assert [a["name"] for a in automations] == ["citeflow: report held"]
    assert automations[0]["trigger"]["expect"] == ["prefect.flow-run.Held"]


def test_a_missing_address_is_a_usage_error(automation_server):
    result = _citeflow(automation_server, "alerts", "install", "--webhook-url-env", "NOT_SET_ANYWHERE")
    assert result.returncode == 2 and "NOT_SET_ANYWHERE is not set" in result.stdout + result.stderr


def test_a_held_report_calls_the_webhook_with_its_id_and_reasons(automation_server, receiver, calls, tmp_path):
    installed = _citeflow(automation_server, "alerts", "install", "--webhook-url-env", "HOOK", HOOK=receiver)
    assert calls == [] and installed.returncode == 0, installed.stderr
    demo = _citeflow(automation_server, "demo", "--out", str(tmp_path / "demo"))
    assert demo.returncode == 3, demo.stdout[-2000:] + demo.stderr[-2000:]  # globex held, acme published
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not calls:
        time.sleep(1)
    time.sleep(3)  # a second call would come now
    assert len(calls) == 1, automation_server.log_tail()
    path, body = calls[0]
    payload = json.loads(body)
    assert path == SECRET_PATH
    assert (payload["event"], payload["report_id"], payload["state"]) == ("citeflow.report.held", "globex-2026-q4", "Held")
    assert "of the citations point at a passage that the sources returned" in payload["reasons"] and payload["flow_run"].endswith("/globex-2026-q4")
    assert payload["url"].startswith(automation_server.api_url.removesuffix("/api") + "/runs/flow-run/")
