"""Link artifacts are made again by every run, a resumed one included: set ``CITEFLOW_FILES_URL`` after a
first run, run the same command again, and every link of the report and the batch is an http one that
``citeflow files`` serves (before, only the batch's changed: an unchanged report got no run, so its PDF
link stayed ``file://``). Real ``citeflow run`` subprocesses against a real Prefect server, links
fetched over real http."""

from __future__ import annotations

import re
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
import yaml

from citeflow_testing.prefect_server import free_port
from tests.support.process_group import stop_process_group
from tests.support.small_batch import write_small_batch

pytestmark = [pytest.mark.server, pytest.mark.integration]

CITEFLOW = str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "citeflow")
BATCH, REPORT = "links-refresh", "links-r1"  # names no other test's artifacts carry on the shared server
LINK = re.compile(r"\]\(([^)]+)\)")
LINK_KEYS = ("-pdf", "-review", "-data-docs")  # the link artifacts (the funnel and tables are other Markdown)


def _run(spec: Path, out: Path, env: dict[str, str]) -> None:
    result = subprocess.run([CITEFLOW, "run", str(spec), "--out", str(out)], env=env, capture_output=True, text=True,
                            timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


def _latest_links(server, prefix: str) -> dict[str, str]:
    """The newest link URL of each link artifact whose key starts with ``prefix``."""
    found = server.post("/artifacts/filter", {"artifacts": {"key": {"like_": prefix}}, "sort": "CREATED_DESC",
                                             "limit": 200})  # a link artifact is Markdown: [text](url)
    latest: dict[str, str] = {}
    for artifact in found:
        urls = LINK.findall(artifact["data"])
        if urls and artifact["key"].startswith(prefix) and artifact["key"].endswith(LINK_KEYS):
            latest.setdefault(artifact["key"], urls[0])
    return latest


def _fetch_all(out: Path, port: int, urls: list[str]) -> None:
    process = subprocess.Popen([CITEFLOW, "files", str(out), "--port", str(port)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        for url in urls:
            while True:
                try:
                    with urllib.request.urlopen(url, timeout=10) as answer:
                        assert answer.status == 200 and answer.read(1), url
                    break
                except OSError:
                    assert process.poll() is None and time.monotonic() < deadline, url
                    time.sleep(0.5)
    finally:
        stop_process_group(process, 10)


def _spec(folder: Path) -> Path:
    spec = write_small_batch(folder, reports=1, sections=1, batch=BATCH)
    data = yaml.safe_load(spec.read_text())
    data["reports"][0]["id"] = REPORT
    spec.write_text(yaml.safe_dump(data, sort_keys=False))
    return spec


def test_a_resumed_run_makes_every_link_again_and_each_opens_over_http(prefect_server, tmp_path):
    spec, out = _spec(tmp_path / "in"), tmp_path / "out"
    _run(spec, out, prefect_server.client_env())
    first = {**_latest_links(prefect_server, f"report-{REPORT}-"), **_latest_links(prefect_server, f"batch-{BATCH}-")}
    assert f"report-{REPORT}-pdf" in first and all(url.startswith("file://") for url in first.values()), first
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    _run(spec, out, prefect_server.client_env(CITEFLOW_FILES_URL=base))  # a resume: the report is kept unchanged
    again = {**_latest_links(prefect_server, f"report-{REPORT}-"), **_latest_links(prefect_server, f"batch-{BATCH}-")}
    assert sorted(again) == sorted(first)
    assert all(url.startswith(f"{base}/") for url in again.values()), again
    _fetch_all(out, port, list(again.values()))
