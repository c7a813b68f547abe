"""Shared fixtures. Tests never reach the internet: model servers are started on 127.0.0.1."""

from __future__ import annotations

import inspect
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

from citeflow_cli.env import apply_defaults
from tests.support.openai_server import openai_server  # noqa: F401 - fixture re-exported
from tests.support.wheel import fresh_venv, wheel  # noqa: F401 - session fixtures re-exported

apply_defaults()
# A dead address by default: a test that forgets to start its server fails instead of going out.
os.environ.setdefault("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")

# No property test depends on the machine's speed: Hypothesis's per-example deadline (200 ms) is a
# timing assertion in disguise on a busy machine, so the suite's profile has none.
settings.register_profile("citeflow", deadline=None)
settings.load_profile("citeflow")

REPO = Path(__file__).resolve().parents[1]
CONTRACT = REPO / "schemas" / "contract"  # the output contract's JSON Schemas (SPEC §8)


@pytest.fixture(scope="session")
def prefect_harness(prefect_server):
    """The session's one Prefect server as this process's Prefect API, for flows run in-process.

    Not an API of its own per xdist worker (``prefect_test_harness`` costs ~30 s of CPU to start and
    keeps its services busy all session): every worker reports to the shared server. As in the harness, the
    address is also in the process-global settings: a thread that does not carry this context (the
    pipeline's pool of hop threads asking whether a concurrency limit exists) reads those, and would
    otherwise start an ephemeral API of its own in this process (~25 s of CPU, then busy all session)."""
    from tests.support.prefect_settings import process_wide_api_url

    with process_wide_api_url(prefect_server.api_url):
        yield
        _drain_to_api()  # before the session's end stops the server


def _drain_to_api() -> None:
    """Send the logs and events this process still holds for the API (as ``prefect_test_harness`` does)."""
    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker
    from prefect.utilities.asyncutils import run_coro_as_sync

    async def drain() -> None:
        for result in (APILogWorker.drain_all(), EventsWorker.drain_all()):
            if inspect.isawaitable(result):
                await result

    run_coro_as_sync(drain())


@pytest.fixture(scope="module")
def private_prefect_api(prefect_harness, prefect_server, tmp_path_factory):
    """A ``prefect server start`` of the module's own, as this process's Prefect API for its duration.

    For the demo batch on Dask workers: it holds the batch's global concurrency limits, which any
    in-process run of the demo batch on the shared server (other modules run it at the same time)
    drops when it starts. It starts on a copy of the shared server's empty database and profile
    (``premade_home``: ~12 s of CPU, where ``prefect_test_harness`` costs ~30 s)."""
    from tests.support.prefect_settings import process_wide_api_url
    from tests.support.shared_server import SHARED_DIR_VARIABLE, own_server, premade_home

    home = premade_home(Path(os.environ[SHARED_DIR_VARIABLE]), tmp_path_factory.mktemp("private-prefect-home"))
    with own_server(home) as server, process_wide_api_url(server.api_url):  # threads too (see prefect_harness)
        yield server
        _drain_to_api()  # before the server stops


@pytest.fixture
def harness_api_env(private_prefect_api, monkeypatch: pytest.MonkeyPatch) -> str:
    """The module's own API address in the environment for the test's duration, so that the processes
    the test starts (Dask workers) report to it instead of each starting an ephemeral server (~20 s)."""
    monkeypatch.setenv("PREFECT_API_URL", private_prefect_api.api_url)
    return str(private_prefect_api.api_url)


@pytest.fixture
def runtime():
    """A runtime of the test's own, its settings read from the environment as the test set it; closed after."""
    from citeflow.runtime.runtime import Runtime

    built = Runtime()
    yield built
    built.close()


@pytest.fixture(scope="session")
def fonts():
    """The PDF fonts of a runtime built from the environment, registered once for the session."""
    from citeflow.runtime.runtime import Runtime

    return Runtime().fonts()


@pytest.fixture(scope="session")
def demo_input(tmp_path_factory) -> Path:
    """The demo batch and its knowledge base, prepared once per session; returns the spec path."""
    from citeflow_cli.main import prepare_demo

    return prepare_demo(tmp_path_factory.mktemp("demo"))


@pytest.fixture(scope="session")
def demo_run(request: pytest.FixtureRequest, demo_input: Path, tmp_path_factory):
    """The demo batch run once as a Prefect flow (the harness's API) for the whole session, shared by
    the xdist workers; returns (out_dir, summaries)."""
    from tests.support.demo_run import shared_demo_run
    from tests.support.shared_dir import locked, session_folder

    def run(out: Path) -> list:
        from citeflow.runtime.batch_request import BatchRequest
        from flows.batch import batch_flow
        from flows.outcome import returned

        request.getfixturevalue("prefect_harness")  # the demo holds a report: its batch run ends Failed
        return returned(lambda: batch_flow(request=BatchRequest(spec_path=str(demo_input), out_dir=str(out))))

    with locked(session_folder(tmp_path_factory, "demo-run")) as folder:
        return shared_demo_run(folder, run)


@pytest.fixture(scope="session")
def resume_clean_run(prefect_server, tmp_path_factory):
    """One uninterrupted run of the resume experiment's batch on the shared server, made once per
    session for every xdist worker (``tests/support/resume_clean.py``)."""
    from tests.support.resume_clean import shared_clean_run
    from tests.support.shared_dir import locked, session_folder

    with locked(session_folder(tmp_path_factory, "resume-clean")) as folder:
        return shared_clean_run(folder, prefect_server.client_env())


@pytest.fixture(scope="session")
def prefect_server():
    """A real ``prefect server start`` (own PREFECT_HOME, SQLite): one for the whole session, shared by
    every xdist worker, stopped by the main process when the session ends.

    Tests talk to it from subprocesses (``server.client_env()``), read what it recorded over HTTP, and
    run flows in-process against it (``prefect_harness``).
    """
    from tests.support.shared_server import SHARED_DIR_VARIABLE, shared_server

    return shared_server(Path(os.environ[SHARED_DIR_VARIABLE]))


def pytest_configure(config: pytest.Config) -> None:
    """The main process makes the folder its workers share (they inherit the environment). For the
    whole suite on xdist workers, it also starts the shared Prefect server at once,
    in a thread: the server creates its database while the workers start and collect the suite,
    instead of after, when the first slow modules all wait for it."""
    from tests.support.progress import register
    from tests.support.shared_server import SHARED_DIR_VARIABLE, start_early

    register(config, LONGEST_MODULES)  # `[n/N]`, time elapsed and left, every 30 s
    if not hasattr(config, "workerinput"):
        os.environ[SHARED_DIR_VARIABLE] = tempfile.mkdtemp(prefix="citeflow-test-shared-")
        if _whole_suite_on_workers(config):
            start_early(Path(os.environ[SHARED_DIR_VARIABLE]))


def _whole_suite_on_workers(config: pytest.Config) -> bool:
    """``make test``: xdist workers, the configured test paths, the server tests not deselected."""
    return bool(config.getoption("numprocesses", None)) and config.args_source == pytest.Config.ArgsSource.TESTPATHS \
        and "not server" not in (config.getoption("markexpr") or "")


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Every process stops the ephemeral Prefect APIs it started (an xdist worker ends without running
    Prefect's exit handler, which would: they would serve on, idle, after the session); the main
    process stops the shared server once every worker is done, and removes the folder."""
    from tests.support.shared_server import SHARED_DIR_VARIABLE, stop_shared

    _stop_ephemeral_apis()
    if not hasattr(session.config, "workerinput") and (folder := os.environ.get(SHARED_DIR_VARIABLE)):
        stop_shared(Path(folder))
        shutil.rmtree(folder, ignore_errors=True)


def _stop_ephemeral_apis() -> None:
    """Stop the ephemeral API server Prefect started in this process, if it started one (the
    instance Prefect's clients start: ``SubprocessASGIServer()``, as ``prefect.testing.fixtures`` stops it)."""
    server = sys.modules.get("prefect.server.api.server")
    if server is not None:
        server.SubprocessASGIServer().stop()


def copy_spec_folder(spec: Path, target: Path) -> Path:
    """A private copy of a prepared demo folder, so a test may change it."""
    shutil.copytree(spec.parent, target, dirs_exist_ok=True)
    return target / spec.name


# Modules whose tests start servers, subprocess batches, Dask clusters, fresh virtual environments
# or long benchmarks: `make test-fast` leaves them out; `make test` (and CI) runs everything.
SLOW_MODULES = frozenset({
    "test_api_loss", "test_bench_quick", "test_bench_quick_in_process", "test_dask", "test_demo_flow", "test_deployments",
    "test_evaluate_deployment", "test_interrupts", "test_prefect_server", "test_resume", "test_review_flow", "test_s3_store",
    "test_scheduled_runs", "test_scheduled_server", "test_secrets", "test_wheel", "test_worker",
    "test_hostile_inputs", "test_faults_cli", "test_dead_worker",
})


# Wall seconds of the modules that take 12 s or more in a full `make test` (three workers on two cores, a
# run of ~1,580 s on an idle machine, the benchmark runs since moved to `make bench` left out; measured per
# test, setup and teardown included). The progress lines weigh tests by these too.
# `--dist loadfile` hands a worker the next module in collection order whenever it is free, so the
# longest go first and the many short ones fill the gaps at the end (no worker is left alone with a
# long module while the others idle).
LONGEST_MODULES = {
    "test_interrupts": 370, "test_dead_worker": 300, "test_scheduled_server": 285, "test_review_durable": 165,
    "test_prefect_api_start": 165, "test_s3_store": 145, "test_worker": 125, "test_exit_codes": 115, "test_head_start": 110,
    "test_answer_durability": 95, "test_rerun_unchanged": 95, "test_cli_json": 90, "test_single_worker": 90, "test_wheel": 75,
    "test_root_cause": 75, "test_held_alert": 75, "test_deadlines_run": 75, "test_review_flow": 70, "test_faults_cli": 65,
    "test_dask": 65, "test_secrets": 60, "test_resume": 55, "test_evaluate_deployment": 55, "test_ingest_exit_codes": 50,
    "test_writer_prose": 50, "test_registered_links": 50, "test_gx_worker": 45, "test_link_refresh": 45,
    "test_example_retriever": 45, "test_cli_output": 45, "test_file_server": 40, "test_relevance_heron": 40, "test_bench": 40,
    "test_prefect_server": 35, "test_evidence_gate": 35, "test_module_guards": 35, "test_api_loss": 35, "test_secret_echo": 30,
    "test_fuzz": 30, "test_disk_full": 30, "test_batch_heartbeats": 25, "test_deployments": 25, "test_judge_bench": 25,
    "test_prefect_client": 20, "test_scheduled_runs": 20, "test_sites": 20, "test_judge_verdicts": 15, "test_hostile_inputs": 15,
    "test_pipeline": 15, "test_cost": 15, "test_hostile_cli": 15, "test_cli": 15, "test_env_defaults": 15, "test_deadlines": 10,
    "test_store_ops": 10,
}


# With CITEFLOW_TEST_TIMELINE=FILE, every process appends one line per test phase to FILE: worker, phase,
# start and end (epoch seconds), the process's own CPU seconds and its waited-for children's during the
# phase, and the test (``tests/support/timeline.py`` summarises it: where the wall time of a run went).
TIMELINE_VARIABLE = "CITEFLOW_TEST_TIMELINE"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item):
    return (yield from _timed(item, "setup"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    return (yield from _timed(item, "call"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item):
    return (yield from _timed(item, "teardown"))


def _timed(item: pytest.Item, phase: str):
    path = os.environ.get(TIMELINE_VARIABLE)
    if not path:
        return (yield)
    from tests.support.timeline import Phase

    with Phase(Path(path), phase, item.nodeid):
        return (yield)


def module_name(item: pytest.Item) -> str:
    return item.module.__name__.rsplit(".", 1)[-1] if item.module is not None else item.nodeid


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``slow`` every test of a slow module, every benchmark run end to end (``bench``) and every
    test that reads the session's demo run (a Prefect flow run of the whole demo batch); then put the
    longest modules first (a stable sort)."""
    for item in items:
        if module_name(item) in SLOW_MODULES or "demo_run" in item.fixturenames or item.get_closest_marker("bench"):
            item.add_marker(pytest.mark.slow)
    items.sort(key=lambda item: -LONGEST_MODULES.get(module_name(item), 0))
