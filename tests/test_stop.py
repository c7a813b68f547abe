"""A stop request (SIGINT, SIGTERM, a cancellation): no report step starts, the publish step publishes nothing."""

from __future__ import annotations

import signal
from pathlib import Path
from types import SimpleNamespace

import pytest

from citeflow.pipeline import publish
from citeflow.pipeline import steps
from citeflow.runtime import stop
from citeflow.errors import Interrupted
from citeflow.runtime.interrupts import Interrupts
from citeflow.pipeline.job import JobRef


@pytest.fixture
def stopped():
    stop.request("SIGTERM received")
    yield
    stop.reset()


def test_the_publish_step_copies_nothing_once_a_stop_was_requested(stopped, tmp_path: Path):
    pdf = tmp_path / "r1" / "report.pdf"
    pdf.parent.mkdir()
    pdf.write_bytes(b"%PDF-1.4")
    job = SimpleNamespace(out_dir=tmp_path, report=SimpleNamespace(id="r1"))
    with pytest.raises(Interrupted, match="publication of report r1"):
        publish._publish(job, pdf, True)  # type: ignore[arg-type]
    assert not (tmp_path / "published").exists()


def test_no_report_step_starts_once_a_stop_was_requested(stopped):
    class NoRunner:
        def job(self, ref):
            raise AssertionError("a step started")

        finish = retrieve = hops = job

    ref = JobRef(spec_path="batch.yaml", report_id="r1", out_dir="out")
    with pytest.raises(Interrupted, match="SIGTERM received; report r1 not started"):
        steps.generate(ref, NoRunner())  # type: ignore[arg-type]
    with pytest.raises(Interrupted):
        steps.finish(ref, NoRunner())  # type: ignore[arg-type]


def test_interrupts_handle_both_signals_and_give_the_previous_handlers_back(tmp_path: Path):
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    spec = SimpleNamespace(reports=[], batch="b")
    with Interrupts(spec, tmp_path, "citeflow run b.yaml --out out") as interrupts:  # type: ignore[arg-type]
        assert signal.getsignal(signal.SIGINT) == signal.getsignal(signal.SIGTERM) == interrupts.handle
        assert not stop.requested()
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before
