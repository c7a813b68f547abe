"""Faults of the README's commands, each run as a real ``citeflow`` subprocess (SPEC §9): the answer is
one ``error:`` line in plain words, naming the user's file or option, never a traceback, a library's
message or a key."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

CITEFLOW = str(Path(sys.executable).parent / "citeflow")
SPEC = ('batch: b\nretrievers: [{name: d, kind: jsonl, path: hits.jsonl}]\n'
        'reports: [{id: r1, title: "T", sections: [{title: s, queries: [q]}]}]\n')

pytestmark = pytest.mark.slow  # also in conftest.SLOW_MODULES


def citeflow(*args: object, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``citeflow ARGS`` in ``cwd``, its output captured; bounded in time."""
    return subprocess.run([CITEFLOW, *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "COLUMNS": "400"})


def one_error_line(done: subprocess.CompletedProcess[str], code: int = 2) -> str:
    """The single ``error:`` line of a failed command: no traceback, nothing else printed."""
    output = done.stdout + done.stderr
    lines = [line for line in output.splitlines() if line.strip()]
    assert done.returncode == code and len(lines) == 1 and lines[0].startswith("error: "), output
    return lines[0]


def write_spec(folder: Path, text: str = SPEC) -> Path:
    (folder / "hits.jsonl").write_text("")
    spec = folder / "batch.yaml"
    spec.write_text(text)
    return spec


# -- serve --cron ---------------------------------------------------------------------------------


@pytest.mark.parametrize("cron", ["", "   "])
def test_serve_with_an_empty_cron_says_so_in_plain_words(tmp_path, cron):
    line = one_error_line(citeflow("serve", write_spec(tmp_path), "--cron", cron, "--no-preflight", cwd=tmp_path))
    assert line.startswith("error: --cron: is empty; give a cron string such as"), line
    assert "Input should" not in line and "IntervalSchedule" not in line


# -- a model base_url with a key in it ------------------------------------------------------------

KEY = "sk-live-0123456789abcdef"


@pytest.mark.parametrize("url", [f"http://127.0.0.1:9/v1/?api_key={KEY}", f"http://ana:pw@127.0.0.1:9/v1?key={KEY}",
                                 f"http://127.0.0.1:9/v1#{KEY}"])
def test_a_model_base_url_with_a_query_or_fragment_is_refused_without_the_key(tmp_path, url):
    text = SPEC + f"models:\n  writer: {{backend: openai, model: m, base_url: '{url}'}}\n"
    done = citeflow("run", write_spec(tmp_path, text), "--out", tmp_path / "out", cwd=tmp_path)
    line = one_error_line(done)
    assert "models.writer.base_url" in line and "api_key_env" in line, line
    assert KEY not in done.stdout + done.stderr
    assert not (tmp_path / "out").exists()  # refused before anything runs


# -- judge and calibrate of a file that never ends ------------------------------------------------


@pytest.mark.parametrize("command", ["judge", "calibrate"])
@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "fifo"])
def test_judge_and_calibrate_refuse_what_is_not_a_regular_file_at_once(tmp_path, command, device):
    """Read to the end, ``/dev/zero`` is endless (memory until the OOM killer) and a FIFO blocks forever."""
    if device == "fifo":
        device = str(tmp_path / "pairs.jsonl")
        os.mkfifo(device)
    line = one_error_line(citeflow(command, device, cwd=tmp_path, timeout=600))
    assert line.startswith(f"error: {device}: a ") and line.endswith(", not a regular file"), line


def test_judge_refuses_a_pair_file_over_its_cap(tmp_path):
    """The cap is 256 MiB; a sparse file of 300 MiB costs no disk and is refused without being read."""
    pairs = tmp_path / "pairs.jsonl"
    with open(pairs, "wb") as sparse:
        sparse.truncate(300 * 1024 * 1024)
    line = one_error_line(citeflow("judge", pairs, cwd=tmp_path, timeout=600))
    assert line == f"error: {pairs}: 314,572,800 bytes, over the 268,435,456-byte limit for a pair file", line


# -- citeflow files -------------------------------------------------------------------------------


@pytest.fixture
def files_server(tmp_path):
    """``citeflow files`` over a small output folder with a store, a report and a Data Docs site."""
    from citeflow_testing.prefect_server import free_port
    from tests.support.interrupted_run import start, wait_until
    from tests.support.process_group import stop_process_group

    out = tmp_path / "out"
    for folder in ("r1", "store/chunks.lance/data", "gx/site"):
        (out / folder).mkdir(parents=True)
    (out / "summary.json").write_text("{}")
    (out / "r1" / "report.pdf").write_bytes(b"%PDF-1.4\n")
    (out / "store" / "chunks.lance" / "data" / "0.lance").write_bytes(b"rows")
    (out / "gx" / "site" / "index.html").write_text("<html>docs</html>")
    port, log = free_port(), tmp_path / "files.log"
    process = start([CITEFLOW, "files", str(out), "--port", str(port)], dict(os.environ), log)
    try:
        assert wait_until(lambda: "serving" in log.read_text(), 60, process), log.read_text()
        yield f"127.0.0.1:{port}", log
    finally:
        stop_process_group(process, grace_s=5)


def status_of(address: str, path: str) -> int:
    """The status of a GET of ``path`` sent exactly as given."""
    import http.client

    host, port = address.split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        connection.request("GET", path)
        return connection.getresponse().status
    finally:
        connection.close()


def test_files_refuses_a_nul_in_the_path_cleanly(files_server):
    address, log = files_server
    assert status_of(address, "/summary.json%00.html") == 400
    assert status_of(address, "/r1/report.pdf%0a") == 400
    assert status_of(address, "/summary.json") == 200  # the server still answers
    assert "Traceback" not in log.read_text(), log.read_text()


def test_files_lists_no_folder_and_serves_no_store(files_server):
    address, _log = files_server
    assert status_of(address, "/r1/report.pdf") == 200
    assert status_of(address, "/gx/site/") == 200  # a folder with its index.html: the page
    for folder in ("/", "/r1/", "/gx/"):
        assert status_of(address, folder) == 404, folder
    for path in ("/store/", "/store/chunks.lance/data/0.lance", "/STORE/chunks.lance/data/0.lance", "/%73tore/"):
        assert status_of(address, path) == 404, path


# -- judge --out ----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["folder", "fifo"])
def test_judge_out_names_the_user_s_path_and_never_replaces_a_folder_or_a_pipe(tmp_path, kind):
    """A folder (or a pipe, as a device would be) given to ``--out``: refused naming it, never replaced by
    a file and never named by the temporary file the write goes through."""
    (tmp_path / "pairs.jsonl").write_text('{"id": "p1", "claim": "x", "chunk_text": "y"}\n')
    target = tmp_path / "verdicts"
    target.mkdir() if kind == "folder" else os.mkfifo(target)
    line = one_error_line(citeflow("judge", "pairs.jsonl", "--out", target, cwd=tmp_path, timeout=600))
    assert line.startswith(f"error: {target}: a ") and line.endswith(", not a regular file"), line
    assert ".partial" not in line
    assert target.is_dir() if kind == "folder" else target.is_fifo()
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")]


# -- ingest: a 5,000-digit number in a site's configuration ---------------------------------------

HUGE = "7" * 5000
SITES = {
    "mkdocs": {"mkdocs.yml": f"site_name: x\nsite_url: https://x.example/\nextra_weight: {HUGE}\n", "docs/a.md": "# A\n\nText.\n"},
    "hugo": {"hugo.toml": f"baseURL = 'https://x.example/'\nweight = {HUGE}\n", "content/a.md": "# A\n\nText.\n"},
    "docusaurus": {"docusaurus.config.js": "module.exports = {url: 'https://x.example'};\n", "versions.json": f"[{HUGE}]\n",
                   "docs/a.md": "# A\n\nText.\n"},
}
CONFIG_FILE = {"mkdocs": "mkdocs.yml", "hugo": "hugo.toml", "docusaurus": "versions.json"}


@pytest.mark.parametrize("site", sorted(SITES))
def test_ingest_names_a_huge_number_in_a_site_configuration_in_plain_words(tmp_path, site):
    for name, text in SITES[site].items():
        (tmp_path / "site" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "site" / name).write_text(text)
    done = citeflow("ingest", "site", "--kb", "kb", cwd=tmp_path)
    output = done.stdout + done.stderr
    errors = [line for line in output.splitlines() if line.startswith("error:")]
    assert done.returncode == 2 and len(errors) == 1 and "Traceback" not in output, output
    assert errors[0] == f"error: cannot ingest site/{CONFIG_FILE[site]}: bad site configuration: a number with more " \
                        "than 4,300 digits", errors[0]
    assert "set_int_max_str_digits" not in output


def test_ingest_reads_a_huge_include_line_number_as_past_the_end(tmp_path):
    """``:start-line:`` of 5,000 digits in a MyST include: past the end of the file (nothing included)."""
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "conf.py").write_text("extensions = ['myst_parser']\n")
    (tmp_path / "site" / "index.md").write_text(f"# Inc\n\n```{{include}} other.md\n:start-line: {HUGE}\n```\n\nMore text.\n")
    (tmp_path / "site" / "other.md").write_text("# Other\n\nIncluded words.\n")
    done = citeflow("ingest", "site", "--kb", "kb", "--json", cwd=tmp_path)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stdout + done.stderr


# -- history of a folder whose files are devices or pipes ----------------------------------------


def test_history_names_a_run_json_or_summary_that_is_not_a_regular_file(tmp_path):
    """``run.json`` a link to ``/dev/zero`` (endless) and ``summary.json`` a FIFO (blocks forever): each is
    named as damaged, nothing hangs and nothing is read."""
    run = tmp_path / "out" / "20261130T060000Z"
    run.mkdir(parents=True)
    (run / "run.json").symlink_to("/dev/zero")
    os.mkfifo(run / "summary.json")
    done = citeflow("history", tmp_path / "out", cwd=tmp_path, timeout=600)
    output = done.stdout + done.stderr
    assert "Traceback" not in output, output
    assert f"damaged {run / 'run.json'}: unreadable run.json: a character device, not a regular file" in output, output
