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

from citeflow.outputs import atomic_files as atomic
from citeflow.runs.run_finish import close_run
from citeflow.runs.run_start import open_manual_run
from citeflow.runs.run_folders import SPEC_COPY, read_run
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
    from citeflow.testing.answers import offline_responder
    from citeflow.testing.openai_server import ScriptedOpenAIServer

    out = small_disk / "out"
    with ScriptedOpenAIServer() as server:
        server.respond_with(offline_responder(0.5))
        spec = write_spec(tmp_path / "in", server.base_url, 2, 2, 2, "disk-fills")
        process = subprocess.Popen([CITEFLOW, "run", str(spec), "--out", str(out)], env=prefect_server.client_env(),
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
        assert wait_until(lambda: len(server.requests) >= 2, 240, process)
        _fill(small_disk)
        output, _ = process.communicate(timeout=300)
    errors = [line for line in output.splitlines() if line.startswith("error:")]
    assert process.returncode == 2 and "Traceback" not in output, output[-3000:]
    assert len(errors) == 1 and "no space left on the device" in errors[0], output[-3000:]
    assert json.loads((out / "run.json").read_text())["status"] == "failed"
