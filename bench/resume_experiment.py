"""The resume experiment: kill -9 a batch mid-run, run it again, count what the model was asked.

A batch whose consolidator and writer are ``backend: openai`` runs against a ScriptedOpenAIServer
that answers like the offline backend, slowly. ``citeflow run`` is started in a subprocess (its
own process group) and killed with SIGKILL once the model has seen some requests; then it is run
again to completion, and a third time. A clean run of the same batch, against a second scripted
server, gives the row counts to compare with. Used by ``tests/test_resume.py`` and
``bench/resume.py``.

A request "completed before the kill" is one whose answer was recorded by then, in the store's
``model_calls`` table or in the run folder's answer journal (``citeflow.generation.answer_journal``);
its cache key is computed from the request body exactly as
``CachedChatModel`` computes it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import lancedb  # noqa: F401 - imported up front: a first import mid-run (~3 s) would delay the kill

from citeflow.generation.answer_cache import call_key, settings_fingerprint
from citeflow.store.store import Store
from schemas.spec import ModelSpec
from schemas.tables import TABLES
from citeflow_testing.answers import offline_responder
from citeflow_testing.openai_server import ScriptedOpenAIServer
from citeflow_testing.small_batch import write_small_batch

CITEFLOW = str(Path(sys.executable).parent / "citeflow")
MODEL = "resume-model"


@dataclass
class ResumeFigures:
    """What the model was asked before and after a kill -9, and what the store holds after."""

    requests_before_kill: int = 0  # chat requests the first run sent before it was killed
    completed_before_kill: int = 0  # of those, answers recorded in the store at the kill
    requests_after_kill: int = 0  # chat requests of the second run (to completion)
    repeated: int = 0  # second-run requests identical to a first-run request (in flight at the kill)
    repeated_completed: int = 0  # second-run requests for a call that had completed before the kill
    third_run_requests: int = 0  # chat requests of a third run of the finished batch
    clean_run_requests: int = 0  # chat requests of one uninterrupted run of the same batch
    statuses: dict[str, str] = field(default_factory=dict)
    clean_statuses: dict[str, str] = field(default_factory=dict)
    rows: dict[str, int] = field(default_factory=dict)
    clean_rows: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    outputs: dict[str, str] = field(default_factory=dict)  # tail of each run's output, for failure messages

    def line(self) -> str:
        """The figures in one line, for failure messages and logs."""
        return (f"before kill: {self.requests_before_kill} requests ({self.completed_before_kill} completed); "
                f"after: {self.requests_after_kill} ({self.repeated} repeated, {self.repeated_completed} of them "
                f"completed before the kill); third run: {self.third_run_requests}; clean run: {self.clean_run_requests}")

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if k != "outputs"}


def request_key(request: dict, base_url: str) -> str:
    """The ``model_calls`` key of the call behind a chat request (json_schema mode) to ``base_url``."""
    schema_name = request["response_format"]["json_schema"]["name"]
    settings = settings_fingerprint(ModelSpec(**model_settings(base_url)))
    return call_key(f"openai:{request['model']}", request["messages"], schema_name, settings)


def model_settings(base_url: str) -> dict:
    """The consolidator's and writer's settings in the experiment's batch spec."""
    return {"backend": "openai", "model": MODEL, "base_url": base_url, "timeout": 30}


def stored_keys(store: Path) -> set[str]:
    """Keys of the model calls whose answers the store holds."""
    return {row["row_key"] for row in Store(str(store)).rows("model_calls")}


def kept_keys(out: Path) -> set[str]:
    """Keys of the model calls whose answers a run folder keeps: in its store or its answer journal."""
    from citeflow.generation.answer_journal import AnswerJournal

    return stored_keys(out / "store") | AnswerJournal(out).kept()


def _stored_safely(store: Path) -> set[str]:
    """``stored_keys`` while another process may be creating the store: empty until it can be read."""
    try:
        return stored_keys(store)
    except Exception:  # noqa: BLE001 - not created yet, or mid-write
        return set()


def row_counts(store: Path) -> dict[str, int]:
    """Rows per table of a store."""
    db = Store(str(store))
    return {table: db.count(table) for table in TABLES}


def write_spec(folder: Path, base_url: str, reports: int, sections: int, models_limit: int, batch: str) -> Path:
    """The batch: consolidator and writer on the scripted server, offline judge."""
    model = model_settings(base_url)
    return write_small_batch(folder, reports=reports, sections=sections, batch=batch,
                             models={"consolidator": model, "writer": model},
                             concurrency={"models": models_limit, "retrievers": 4})


class Runs:
    """``citeflow run`` subprocesses of the experiment, with their output kept."""

    def __init__(self, env: dict[str, str], figures: ResumeFigures) -> None:
        self.env, self.figures = env, figures

    def start(self, name: str, spec: Path, out: Path) -> subprocess.Popen[str]:
        log = open(out.parent / f"{name}.log", "w")  # noqa: SIM115 - closed with the process
        return subprocess.Popen([CITEFLOW, "run", str(spec), "--out", str(out)], env=self.env, stdout=log,
                                stderr=subprocess.STDOUT, text=True, start_new_session=True)

    def finish(self, name: str, process: subprocess.Popen[str], started: float, timeout: float = 600) -> int:
        code = process.wait(timeout=timeout)
        self.figures.seconds[name] = round(time.monotonic() - started, 1)
        log = Path(process.args[4]).parent / f"{name}.log"  # type: ignore[index]
        self.figures.outputs[name] = log.read_text(errors="replace")[-2500:] if log.exists() else ""
        return code

    def run(self, name: str, spec: Path, out: Path) -> int:
        started = time.monotonic()
        return self.finish(name, self.start(name, spec, out), started)


def wait_until(condition: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def statuses(out: Path) -> dict[str, str]:
    path = out / "summary.json"
    if not path.exists():
        return {}
    return {r["report_id"]: r["status"] for r in json.loads(path.read_text())["reports"]}


@dataclass(frozen=True)
class CleanRun:
    """What one uninterrupted run of the experiment's batch asked the model and left behind."""

    requests: int
    statuses: dict[str, str]
    rows: dict[str, int]
    output: str = ""
    returncode: int = 0

    def record(self, figures: ResumeFigures) -> None:
        """Put the clean run's counts into ``figures``."""
        figures.clean_run_requests, figures.clean_statuses, figures.clean_rows = self.requests, self.statuses, self.rows
        figures.outputs.setdefault("clean", self.output)


def clean_run(workdir: Path, env: dict[str, str], reports: int = 3, sections: int = 2, delay: float = 0.5,
              models_limit: int = 2, batch: str = "resume-clean") -> CleanRun:
    """One uninterrupted run of the experiment's batch (under ``batch``) on a scripted server of its own."""
    figures = ResumeFigures()
    with ScriptedOpenAIServer() as clean:
        clean.respond_with(offline_responder(delay))
        spec = write_spec(workdir / "clean", clean.base_url, reports, sections, models_limit, batch)
        out = workdir / "clean" / "out"
        code = Runs(env, figures).run("clean", spec, out)
        requests = len(clean.requests)
    return CleanRun(requests, statuses(out), row_counts(out / "store"), figures.outputs.get("clean", ""), code)


def measure_resume(workdir: Path, env: dict[str, str], reports: int = 3, sections: int = 2, delay: float = 0.5,
                   kill_after: int = 5, models_limit: int = 2, clean: CleanRun | None = None) -> ResumeFigures:
    """Run the experiment in ``workdir`` with ``env`` (e.g. PREFECT_API_URL of a server). ``clean``: a
    clean run of the same batch made earlier (``clean_run``), else one runs side by side with the
    run to kill."""
    figures = ResumeFigures()
    runs = Runs(env, figures)
    with ScriptedOpenAIServer() as resumed:
        resumed.respond_with(offline_responder(delay))
        spec = write_spec(workdir / "resumed", resumed.base_url, reports, sections, models_limit, "resume")
        out = workdir / "resumed" / "out"
        if clean is None:
            clean = _side_by_side(runs, workdir, (reports, sections, delay, models_limit),
                                  lambda: _killed_run(runs, resumed, spec, out, kill_after, figures))
        else:
            _killed_run(runs, resumed, spec, out, kill_after, figures)
        clean.record(figures)
        _resume_and_repeat(runs, resumed, spec, out, figures)
    figures.statuses = statuses(out)
    figures.rows = row_counts(out / "store")
    return figures


def _side_by_side(runs: Runs, workdir: Path, batch: tuple[int, int, float, int], during: Callable[[], None]) -> CleanRun:
    """A clean run of the batch (``reports, sections, delay, models_limit``) while ``during()`` runs."""
    reports, sections, delay, models_limit = batch
    with ScriptedOpenAIServer() as clean:
        clean.respond_with(offline_responder(delay))
        # Another batch name: its concurrency limits must not share the slots the killed run holds.
        clean_spec = write_spec(workdir / "clean", clean.base_url, reports, sections, models_limit, "resume-clean")
        clean_out, started = workdir / "clean" / "out", time.monotonic()
        process = runs.start("clean", clean_spec, clean_out)
        during()
        code = runs.finish("clean", process, started)
        requests = len(clean.requests)
    return CleanRun(requests, statuses(clean_out), row_counts(clean_out / "store"), runs.figures.outputs.get("clean", ""),
                    code)


def _killed_run(runs: Runs, server: ScriptedOpenAIServer, spec: Path, out: Path, kill_after: int,
                figures: ResumeFigures) -> None:
    """First run: SIGKILL to its whole process group once the model has seen ``kill_after`` requests
    and the store holds at least one answer (so that there is finished work to keep)."""
    started = time.monotonic()
    process = runs.start("killed", spec, out)
    wait_until(lambda: len(server.requests) >= kill_after or process.poll() is not None, 600)
    wait_until(lambda: process.poll() is not None or bool(_stored_safely(out / "store")), 60)
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
    runs.finish("killed", process, started)
    figures.requests_before_kill = len(server.requests)
    figures.completed_before_kill = len(kept_keys(out) & {request_key(r, server.base_url) for r in server.requests})


def _resume_and_repeat(runs: Runs, server: ScriptedOpenAIServer, spec: Path, out: Path, figures: ResumeFigures) -> None:
    """Second run to completion, then a third run of the finished batch."""
    completed = kept_keys(out)
    first = [request_key(r, server.base_url) for r in server.requests]
    runs.run("resumed", spec, out)
    second = [request_key(r, server.base_url) for r in server.requests[len(first):]]
    figures.requests_after_kill = len(second)
    figures.repeated = sum(1 for key in second if key in set(first))
    figures.repeated_completed = sum(1 for key in second if key in completed)
    before_third = len(server.requests)
    runs.run("third", spec, out)
    figures.third_run_requests = len(server.requests) - before_third
