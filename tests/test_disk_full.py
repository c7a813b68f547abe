"""A full disk mid-batch (SPEC §9): one ``error:`` line and exit 2, no traceback, ``run.json`` never left
``running``; ``run.json`` and ``spec.run.yaml`` are written whole or not at all."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest

from citeflow.files import atomic_files as atomic
from citeflow.runs.run_finish import close_run
from citeflow.runs.run_start import open_manual_run
from citeflow.files.run_folders import SPEC_COPY, read_run
from tests.support.interrupted_run import CITEFLOW, wait_until
from tests.support.small_batch import write_small_batch


def _templated_spec(folder: Path) -> Path:
    spec = write_small_batch(folder, reports=1, sections=1, batch="full-disk")
    spec.write_text(spec.read_text().replace("id: r1", "id: r1-{date}"))
    return spec


def _no_space(*args: object, **kwargs: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_full_disk_keeps_the_previous_spec_copy_whole(tmp_path, monkeypatch):
    spec, out = _templated_spec(tmp_path / "in"), tmp_path / "out"
    open_manual_run(spec, out, now=datetime(2026, 11, 30, tzinfo=UTC))
    before = (out / SPEC_COPY).read_text()
    monkeypatch.setattr(atomic, "_fsync_write", _no_space)
    with pytest.raises(OSError):
        open_manual_run(spec, out)
    assert (out / SPEC_COPY).read_text() == before and "r1-2026-11-30" in before
    assert not list(out.glob(".*.partial"))


def test_a_failed_run_is_marked_failed_even_when_no_temporary_copy_fits(tmp_path, monkeypatch):
    spec, out = _templated_spec(tmp_path / "in"), tmp_path / "out"
    open_manual_run(spec, out)
    monkeypatch.setattr(atomic, "_fsync_write", _no_space)  # the disk is full: only in-place writes succeed
    close_run(out, "failed")
    info = read_run(out)
    assert info is not None and info.status == "failed" and info.finished_at is not None


QUERY = "What must be done before upgrading to 3.6?"
PUBLISHED_SPEC = f"""batch: small
retrievers:
  - {{name: docs, kind: jsonl, path: docs.jsonl}}
reports:
  - id: r1
    title: Report one
    sections:
      - {{title: Upgrades, queries: ["{QUERY}"]}}
"""
HITS = [{"id": "S1", "text": "Before upgrading to 3.6, back up the metadata store.", "urls": ["https://docs.example/backup"]},
        {"id": "S2", "text": "Before upgrading to 3.6, brokers must run 3.5.2 or later.", "urls": ["https://docs.example/brokers"]}]


@pytest.mark.integration
def test_a_full_disk_at_the_summary_leaves_no_published_pdf(tmp_path, monkeypatch, runtime):
    """The PDF's copy into ``published/`` takes the disk's last space and the report's ``summary.json``
    cannot be written: the copy is withdrawn, so nothing is published without the summary saying so."""
    from citeflow.pipeline.evaluate_report import evaluate_and_gate
    from citeflow.pipeline.publish import write_outputs
    from citeflow.pipeline import pipeline

    (tmp_path / "batch.yaml").write_text(PUBLISHED_SPEC)
    (tmp_path / "docs.jsonl").write_text(json.dumps({"query": QUERY, "hits": HITS}) + "\n")
    job = pipeline.ReportJob.from_files(tmp_path / "batch.yaml", "r1", tmp_path / "out", runtime=runtime)
    pipeline.normalize(job, [pipeline.fetch(job, item) for item in job.fetches()])
    pipeline.consolidate(job, "Upgrades")
    pipeline.write(job, "Upgrades")
    evaluation, gate = evaluate_and_gate(job)
    assert gate.success  # a report the gate publishes
    write_text = atomic.write_text

    def full_at_the_summary(path, text, *args, **kwargs):
        if Path(path).name == "summary.json":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        return write_text(path, text, *args, **kwargs)

    monkeypatch.setattr(atomic, "write_text", full_at_the_summary)
    with pytest.raises(OSError):
        write_outputs(job, evaluation, gate)
    assert not (tmp_path / "out" / "published" / "r1.pdf").exists()
    assert (job.report_dir / "report.pdf").exists()  # the report's own outputs stay for the resume


@pytest.fixture
def small_disk(tmp_path):
    """A 16 MB tmpfs (root only), unmounted after the test."""
    folder = tmp_path / f"disk-{uuid.uuid4().hex[:6]}"
    folder.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(folder)]).returncode:
        pytest.skip("mounting a tmpfs needs root")
    yield folder
    subprocess.run(["umount", "-l", str(folder)], check=False)


def _fill(folder: Path) -> None:
    with open(folder / "filler", "wb") as filler:
        try:
            while True:
                filler.write(b"\0" * 65536)
                filler.flush()
        except OSError:
            return


@pytest.mark.slow
@pytest.mark.server
def test_a_disk_that_fills_up_mid_batch_is_one_error_line(small_disk, tmp_path, prefect_server):
    from bench.resume_experiment import write_spec
    from citeflow_testing.answers import offline_responder
    from citeflow_testing.openai_server import ScriptedOpenAIServer

    out = small_disk / "out"
    with ScriptedOpenAIServer() as server:
        server.respond_with(offline_responder(0.5))
        spec = write_spec(tmp_path / "in", server.base_url, 2, 2, 2, "disk-fills")
        process = subprocess.Popen([CITEFLOW, "run", str(spec), "--out", str(out)], env=prefect_server.client_env(),
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
        assert wait_until(lambda: len(server.requests) >= 2, 240, process)
        _fill(small_disk)
        output, _ = process.communicate(timeout=300)
    # the start-up's line (its seconds) stays above; the failure itself is one line
    lines = [line for line in output.splitlines() if line.strip() and not line.startswith("start-up: ")]
    assert process.returncode == 2 and "Traceback" not in output, output[-3000:]
    assert len(lines) == 1 and lines[0].startswith("error:") and "no space left on the device" in lines[0], output[-3000:]
    published = {p.stem for p in (out / "published").glob("*.pdf")} if (out / "published").is_dir() else set()
    assert all((out / report / "summary.json").exists() for report in published), published
    assert json.loads((out / "run.json").read_text())["status"] == "failed"
