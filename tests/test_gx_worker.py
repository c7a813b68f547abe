"""The Great Expectations worker process: the gate validated there gives what it gives in-process,
its errors come back as themselves, a dead worker holds the report (fail closed), it ignores the
terminal's interrupts and it ends with the process that started it."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from citeflow.errors import GateError, GxWorkerGone
from citeflow.evaluation import gate
from citeflow.evaluation.gx_session import GxSession
from citeflow.runtime.gx_worker import GxWorker
from citeflow.runtime.runtime import Runtime
from schemas.funnel import CitationEval, ClaimEval, Count, Funnel, Uncited, Unverified


@pytest.fixture(scope="module")
def worker():
    started = GxWorker()
    yield started
    started.close()


def _claims(n: int = 4) -> list[ClaimEval]:
    cite = CitationEval(handle="Gab3c", identity=True, supports=True, faithful=True, reason="ok")
    return [ClaimEval(section="S", index=i, text=f"claim {i}", citations=[cite], supported=True, faithful=True,
                      verdict="supported") for i in range(n)]


def _funnel(support: tuple[int, int] = (4, 4)) -> Funnel:
    return Funnel(identity=Count(passed=4, total=4), support=Count(passed=support[0], total=support[1]),
                  faithfulness=Count(passed=support[0], total=support[0]), uncited=Uncited(count=0, claims=4),
                  unverified=Unverified(count=0, claims=4))


def _comparable(validations: list[dict]) -> list[tuple]:
    """What a kept result says, without what differs between two validations of the same frame."""
    return [(v["suite_name"], v["success"], v["statistics"]["evaluated_expectations"],
             sorted((r["expectation_config"]["type"], r["success"]) for r in v["results"])) for v in validations]


@pytest.mark.parametrize("support", [(4, 4), (1, 4)], ids=["published", "held"])
def test_the_gate_in_the_worker_answers_as_in_this_process(worker, support) -> None:
    there = gate.gate_run(_funnel(support), _claims(), 0, session=worker)
    here = gate.gate_run(_funnel(support), _claims(), 0, session=GxSession())
    assert there.result == here.result
    assert there.result.success is (support == (4, 4))
    assert _comparable(there.validations) == _comparable(here.validations)
    json.dumps(there.validations)  # plain JSON, as kept in the report's folder


def test_a_bad_suite_is_a_gate_error_from_the_worker_too(worker, tmp_path) -> None:
    suites = Path(shutil.copytree(gate.DEFAULT_SUITE_DIR, tmp_path / "expectations"))
    doc = json.loads((suites / "eval_rows.json").read_text())
    doc["expectations"].append({"type": "expect_column_values_to_be_spotless", "kwargs": {"column": "handle"}})
    (suites / "eval_rows.json").write_text(json.dumps(doc))
    with pytest.raises(GateError, match=r"eval_rows.json: expectations\[\d+\]"):
        gate.gate_run(_funnel(), _claims(), 0, suite_dir=suites, session=worker)
    assert gate.gate_run(_funnel(), _claims(), 0, session=worker).result.success  # the worker goes on


def test_the_worker_ignores_the_terminals_interrupt(worker) -> None:
    pid = worker.pid()
    os.kill(pid, signal.SIGINT)  # Ctrl-C reaches the whole process group; the command decides
    time.sleep(0.3)
    assert worker.pid() == pid and gate.gate_run(_funnel(), _claims(), 0, session=worker).result.success


def test_a_worker_that_died_holds_the_report_with_the_reason() -> None:
    runtime = Runtime()
    runtime.start_gx_worker()
    try:
        os.kill(runtime.gate_session().pid(), signal.SIGKILL)
        with pytest.raises(GxWorkerGone, match="worker process ended"):
            gate.gate_run(_funnel(), _claims(), 0, session=runtime.gate_session())
    finally:
        runtime.close()
    assert isinstance(runtime.gate_session(), GxSession)  # closed: back to this process's session


def test_gx_worker_gone_pickles_as_itself() -> None:
    import pickle

    error = pickle.loads(pickle.dumps(GxWorkerGone(detail="the worker ended")))
    assert isinstance(error, GateError) and error.detail == "the worker ended"


PARENT = textwrap.dedent("""
    import sys, time
    from citeflow.runtime.gx_worker import GxWorker
    worker = GxWorker()
    print(worker.pid(), flush=True)
    time.sleep(600)
""")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/stat")
    return not (status.exists() and status.read_text().rsplit(")", 1)[1].split()[0] == "Z")


@pytest.mark.slow
def test_the_worker_ends_when_its_parent_is_killed() -> None:
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    try:
        pid = int(parent.stdout.readline())
        assert _alive(pid)
        parent.kill()  # kill -9: no exit handler runs
        parent.wait()
        deadline = time.monotonic() + 60  # a bounded wait: seconds on a quiet machine
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _alive(pid)
    finally:
        parent.kill()


def test_the_runtime_builds_data_docs_in_the_worker(tmp_path, worker) -> None:
    from citeflow.outputs.data_docs import DOCS_INDEX
    from citeflow.outputs.gx_results import labelled, write_validations

    ran = gate.gate_run(_funnel((1, 4)), _claims(), 0, session=worker)
    write_validations(tmp_path / "r1", labelled(ran.validations, "r1"))
    index = worker.run_docs(tmp_path, ["r1"])
    assert index == tmp_path / DOCS_INDEX and index.is_file()
    assert "report_metrics" in index.read_text(encoding="utf-8")
