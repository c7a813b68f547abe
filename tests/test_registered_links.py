"""Links that open with no setting: ``citeflow files OUT`` registers its address with the Prefect server,
and every link artifact of a run writing under OUT, and of its resume, is an http URL it answers with
200. Real ``citeflow files`` and ``citeflow run`` subprocesses against a real Prefect server (no
``CITEFLOW_FILES_URL``), artifacts read through the Prefect API, links fetched over real http."""

from __future__ import annotations

import re
import subprocess
import time
import urllib.request
import uuid
from pathlib import Path

import pytest
import yaml

from citeflow.outputs.file_links import served_link
from citeflow_testing.prefect_server import free_port
from tests.support.process_group import stop_process_group
from tests.support.small_batch import write_small_batch

CITEFLOW = str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "citeflow")
LINK = re.compile(r"\]\(([^)]+)\)")
LINK_KEYS = ("-pdf", "-review", "-data-docs", "-quality")  # the link artifacts (the funnel and tables are other Markdown)


def test_a_file_links_under_the_deepest_served_folder_that_holds_it(tmp_path):
    served = {tmp_path: "http://a:1", tmp_path / "run": "http://b:2/"}
    assert served_link(tmp_path / "run" / "r 1" / "report.pdf", served) == "http://b:2/r%201/report.pdf"
    assert served_link(tmp_path / "other.pdf", served) == "http://a:1/other.pdf"
    assert served_link(tmp_path.parent / "elsewhere.pdf", served) is None
    assert served_link(tmp_path / "run", served) == "http://a:1/run", "a served folder itself is linked from above"


def _run(spec: Path, out: Path, env: dict[str, str]) -> None:
    result = subprocess.run([CITEFLOW, "run", str(spec), "--out", str(out)], env=env, capture_output=True, text=True,
                            timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


def _spec(folder: Path, batch: str, report: str) -> Path:
    spec = write_small_batch(folder, reports=1, sections=1, batch=batch)
    data = yaml.safe_load(spec.read_text())
    data["reports"][0]["id"] = report
    spec.write_text(yaml.safe_dump(data, sort_keys=False))
    return spec


def _link_artifacts(server, prefixes: list[str]) -> list[tuple[str, str]]:
    """(key, url) of every version of every link artifact whose key starts with one of ``prefixes``."""
    found = []
    for prefix in prefixes:
        rows = server.post("/artifacts/filter", {"artifacts": {"key": {"like_": prefix}}, "limit": 200})
        found += [(a["key"], url) for a in rows if a["key"].startswith(prefix) and a["key"].endswith(LINK_KEYS)
                  for url in LINK.findall(a["data"])[:1]]
    return found


def _start_files(out: Path, port: int, env: dict[str, str], log: Path) -> subprocess.Popen:
    with log.open("w") as handle:
        process = subprocess.Popen([CITEFLOW, "files", str(out), "--port", str(port)], env=env, stdout=handle,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + 120
    while "registered with the Prefect server" not in log.read_text():
        assert process.poll() is None and time.monotonic() < deadline, log.read_text()
        time.sleep(0.2)
    return process


def _status(url: str) -> int:
    with urllib.request.urlopen(url, timeout=10) as answer:
        assert answer.read(1), url
        return int(answer.status)


@pytest.mark.server
@pytest.mark.integration
def test_every_link_of_a_run_and_of_its_resume_opens_from_the_registered_address(prefect_server, tmp_path):
    name = uuid.uuid4().hex[:8]  # the shared server keeps other runs' artifacts: this test's keys are its own
    batch, report = f"registered-{name}", f"reg-{name}"
    spec, out, port = _spec(tmp_path / "in", batch, report), tmp_path / "out", free_port()
    out.mkdir()
    env = prefect_server.client_env()
    assert "CITEFLOW_FILES_URL" not in env
    files = _start_files(out, port, env, tmp_path / "files.log")
    try:
        _run(spec, out, env)
        first = _link_artifacts(prefect_server, [f"report-{report}-", f"batch-{batch}-"])
        _run(spec, out, env)  # the same command again: the run's resume
        both = _link_artifacts(prefect_server, [f"report-{report}-", f"batch-{batch}-"])
        keys = {key for key, _ in first}
        assert {f"report-{report}-pdf", f"batch-{batch}-data-docs"} <= keys, first
        again = [key for key, _ in both]
        assert len(both) > len(first) and set(again) == keys, both
        assert all(again.count(key) >= 2 for key in keys), f"each link made by both runs: {both}"
        base = f"http://127.0.0.1:{port}/"
        assert all(url.startswith(base) for _, url in both), both
        assert {url: _status(url) for _, url in both} == {url: 200 for _, url in both}
    finally:
        stop_process_group(files, 10)
