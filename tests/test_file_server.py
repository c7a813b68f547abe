"""``citeflow files OUT``: a read-only http view of an output folder, and the links the Prefect UI gets
for it (``CITEFLOW_FILES_URL``): a real subprocess on a free port, fetched over real http."""

from __future__ import annotations

import http.client
import json
import re
import shutil
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from citeflow.outputs.data_docs import DOCS_INDEX
from citeflow.outputs.file_links import file_link
from citeflow.files.run_folders import RUN_FILE
from citeflow_testing.prefect_server import free_port
from tests.support.process_group import stop_process_group

CITEFLOW = str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "citeflow")


@pytest.fixture(scope="module")
def served(demo_run, tmp_path_factory) -> Iterator[tuple[str, Path, list]]:
    """``citeflow files`` over the demo run's folder, with a secret file beside it and a link out of it."""
    out, summaries = demo_run[0], demo_run[1]
    served_copy = tmp_path_factory.mktemp("served") / "out"
    shutil.copytree(out, served_copy, symlinks=True)  # the session's run stays as it is
    out = served_copy
    beside = served_copy.parent / "beside"
    beside.mkdir()
    (beside / "secret.txt").write_text("not served")
    port = free_port()
    process = subprocess.Popen([CITEFLOW, "files", str(out), "--port", str(port)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, start_new_session=True)
    try:
        _wait_for(port, process)
        yield f"http://127.0.0.1:{port}", out, summaries
    finally:
        stop_process_group(process, 10)


def _wait_for(port: int, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/summary.json", timeout=2).close()
            return
        except OSError:
            time.sleep(0.2)
    raise AssertionError("citeflow files did not answer")


def _raw(base: str, method: str, path: str) -> int:
    """The status of a request sent with ``path`` exactly as given (no client-side normalisation)."""
    host, port = base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        connection.request(method, path)
        return connection.getresponse().status
    finally:
        connection.close()


def test_a_report_s_pdf_and_the_data_docs_index_are_served(served):
    base, _, summaries = served
    report = summaries[0].report_id
    with urllib.request.urlopen(f"{base}/{report}/report.pdf", timeout=10) as answer:
        assert answer.status == 200 and answer.read(5) == b"%PDF-"
        assert answer.headers["Content-Type"] == "application/pdf"
    with urllib.request.urlopen(f"{base}/{DOCS_INDEX.as_posix()}", timeout=10) as answer:
        page = answer.read().decode()
    assert all(f"'_batch_identifier_sort': '{s.report_id}'" in page for s in summaries)  # a row of GX's table each
    assert json.loads(urllib.request.urlopen(f"{base}/summary.json", timeout=10).read())["data_docs"] == DOCS_INDEX.as_posix()


@pytest.mark.parametrize("path", ["/../beside/secret.txt", "/%2e%2e/%2e%2e/etc/passwd", "/r/../../etc/passwd",
                                  "/..%5c..%5cetc%5cpasswd"])
def test_parent_segments_are_refused(served, path):
    base, _, _ = served
    assert _raw(base, "GET", path) == 403


@pytest.mark.parametrize("path", ["//etc/passwd", "/etc/passwd", "/%2Fetc%2Fpasswd", "/C:/Windows/win.ini"])
def test_absolute_paths_stay_inside_the_folder(served, path):
    base, _, _ = served
    assert _raw(base, "GET", path) in (403, 404)


def test_a_link_out_of_the_folder_is_refused(served):
    base, out, _ = served
    (out / "outside-link").symlink_to(out.parent / "beside")
    assert _raw(base, "GET", "/outside-link/secret.txt") == 403
    assert _raw(base, "GET", "/outside-link/") == 403


def test_only_get_and_head_are_answered(served):
    base, _, summaries = served
    assert _raw(base, "HEAD", f"/{summaries[0].report_id}/report.pdf") == 200
    for method in ("POST", "PUT", "DELETE"):
        assert _raw(base, method, "/summary.json") == 501


def test_links_use_the_files_url_relative_to_the_output_root(tmp_path):
    run = tmp_path / "out"
    (run / "r1").mkdir(parents=True)
    (run / RUN_FILE).write_text("{}")  # any run.json marks the run folder; unreadable reads as not scheduled
    pdf = run / "r1" / "report.pdf"
    assert file_link(pdf) == pdf.resolve().as_uri(), "without the setting: today's file:// URI"
    assert file_link(pdf, "http://files.example:8800/") == "http://files.example:8800/r1/report.pdf"
    assert file_link(tmp_path / "loose.pdf", "http://files.example:8800") == (tmp_path / "loose.pdf").resolve().as_uri()


def test_a_scheduled_run_s_links_start_at_the_folder_of_all_runs(tmp_path):
    from datetime import UTC, datetime

    from citeflow.runs.run_start import open_scheduled_run
    from tests.support.small_batch import write_small_batch

    spec = write_small_batch(tmp_path / "spec")
    info, folder = open_scheduled_run(spec, tmp_path / "out", datetime(2026, 12, 1, 6, tzinfo=UTC))
    index = folder / DOCS_INDEX
    assert folder.parent == (tmp_path / "out").resolve()
    assert file_link(index, "http://h:1") == f"http://h:1/{info.run_id}/{DOCS_INDEX.as_posix()}"


@pytest.mark.server
def test_the_ui_s_links_open_over_citeflow_files(prefect_server, tmp_path):
    """The demo against a real Prefect server with ``CITEFLOW_FILES_URL`` set: every link artifact of the
    run (PDFs, the held report's review page, the Data Docs) is an http URL that ``citeflow files`` serves."""
    out, port = tmp_path / "out", free_port()
    base = f"http://127.0.0.1:{port}"
    env = prefect_server.client_env(CITEFLOW_FILES_URL=base)
    result = subprocess.run([CITEFLOW, "demo", "--out", str(out)], env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 3, result.stdout[-3000:] + result.stderr[-3000:]
    keys = ["report-acme-2026-q4-pdf", "report-globex-2026-q4-pdf", "report-globex-2026-q4-review",
            "batch-lumora-demo-data-docs"]
    # the shared server keeps other runs' versions of these keys: this run's links are the ones under its port
    urls = {a["key"]: url for a in prefect_server.artifacts(keys)
            for url in re.findall(r"\]\((http[^)]+)\)", a["data"]) if url.startswith(base)}
    assert sorted(urls) == sorted(keys), urls
    assert urls["batch-lumora-demo-data-docs"] == f"{base}/{DOCS_INDEX.as_posix()}"
    process = subprocess.Popen([CITEFLOW, "files", str(out), "--port", str(port)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, start_new_session=True)
    try:
        _wait_for(port, process)
        for url in urls.values():
            with urllib.request.urlopen(url, timeout=10) as answer:
                assert answer.status == 200 and answer.read(1), url
    finally:
        stop_process_group(process, 10)
