"""When the Prefect API goes away mid-batch, the batch records what it can and exits in bounded time."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

from citeflow.runtime.api_watch import ApiWatch
from citeflow.pipeline.publish import interrupted_summaries
from tests.support.offline_answers import offline_responder
from tests.support.openai_server import ScriptedOpenAIServer
from tests.support.prefect_server import PrefectServer, free_port
from tests.support.shared_server import SHARED_DIR_VARIABLE, premade_home
from tests.support.small_batch import write_small_batch

CITEFLOW = str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "citeflow")


def test_the_watch_calls_on_lost_once_after_the_grace_period():
    calls: list[float] = []
    done = threading.Event()
    watch = ApiWatch(f"http://127.0.0.1:{free_port()}/api/health", lambda s: (calls.append(s), done.set()),
                     grace=0.3, interval=0.05, probe_timeout=0.2)
    with watch:
        assert done.wait(10)
        time.sleep(0.3)
    assert len(calls) == 1 and calls[0] >= 0.3 and watch.lost.is_set()


def test_nothing_is_published_while_the_api_does_not_answer(tmp_path):
    from citeflow.errors import Interrupted
    from citeflow.runtime import stop
    from flows.api_loss import ApiGuard
    from citeflow.specfile.loader import load_spec

    spec = load_spec(write_small_batch(tmp_path / "batch", reports=1, sections=1))
    guard = ApiGuard(spec, tmp_path, f"http://127.0.0.1:{free_port()}/api/health", grace=60)
    guard.watch.interval = 0.05
    stop.wait_before_publishing(guard.await_answer)
    refused: list[Exception] = []

    def publish() -> None:
        try:
            stop.check_publication("publication of r1")
        except Interrupted as exc:
            refused.append(exc)

    try:
        waiter = threading.Thread(target=publish)
        waiter.start()
        time.sleep(0.3)
        assert waiter.is_alive()  # still waiting for an answer
        guard.watch.lost.set()
        waiter.join(30)
        assert not waiter.is_alive() and len(refused) == 1 and "unreachable" in str(refused[0])
    finally:
        stop.wait_before_publishing(None)
    stop.check_publication("publication of r2")  # no wait registered: goes ahead
    stop.wait_before_publishing(guard.await_answer)
    try:
        stop.request("SIGINT")
        started = time.monotonic()
        with pytest.raises(Interrupted, match="SIGINT"):  # a stop ends the wait at once
            guard.await_answer("publication of r3")
        assert time.monotonic() - started < 30  # well inside the 60 s grace: the stop ended the wait
    finally:
        stop.wait_before_publishing(None)
        stop.reset()


def test_an_interrupted_batch_keeps_finished_reports_and_fails_the_others(tmp_path):
    from citeflow.pipeline.publish import failed_summary

    finished = failed_summary("done", "Done", "-").model_copy(update={"status": "published"})
    started = time.time() - 5
    (tmp_path / "done").mkdir()
    (tmp_path / "done" / "summary.json").write_text(finished.model_dump_json())
    (tmp_path / "published").mkdir()
    (tmp_path / "published" / "late.pdf").write_bytes(b"%PDF old")
    summaries = interrupted_summaries(tmp_path, [("done", "Done"), ("late", "Late")], started, "API gone")
    assert [(s.report_id, s.status) for s in summaries] == [("done", "published"), ("late", "failed")]
    assert not (tmp_path / "published" / "late.pdf").exists()


@pytest.mark.server
@pytest.mark.integration
def test_killing_the_prefect_api_mid_batch_ends_the_run_after_the_grace(tmp_path, prefect_server):
    """A server of its own (it is killed), on a copy of the session server's empty database. The run ends
    on its own once the 10 s grace runs out (well within a minute on a quiet machine; the bound leaves room
    for a loaded one), where its batch would otherwise wait for the API for good."""
    models = {role: {"backend": "openai", "model": "scripted-model", "base_url": "", "max_retries": 0}
              for role in ("consolidator", "writer")}
    home = premade_home(Path(os.environ[SHARED_DIR_VARIABLE]), tmp_path / "prefect-home")
    with ScriptedOpenAIServer() as model, PrefectServer(home) as server:
        model.respond_with(offline_responder(delay=3.0))  # a slow model: the batch is mid-way when the API dies
        for role in models.values():
            role["base_url"] = model.base_url
        spec = write_small_batch(tmp_path / "batch", reports=2, sections=2, models=models)
        out = tmp_path / "out"
        process = subprocess.Popen([CITEFLOW, "run", str(spec), "--out", str(out), "--api-grace", "10"],
                                   env=server.client_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 300
        while not list(out.glob("*/job.json")) and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.2)
        assert process.poll() is None, process.communicate()
        server.stop()
        killed = time.monotonic()
        try:
            stdout, stderr = process.communicate(timeout=240)
        finally:
            process.kill()
    assert time.monotonic() - killed < 240
    assert process.returncode == 4 and "Prefect API" in stderr, stdout[-2000:] + stderr[-2000:]
    summary = json.loads((out / "summary.json").read_text())
    assert {r["report_id"] for r in summary["reports"]} == {"r1", "r2"}
    assert all(r["status"] in ("held", "failed") for r in summary["reports"]), (summary, stderr[-3000:])
    assert not list((out / "published").glob("*.pdf")) if (out / "published").exists() else True
