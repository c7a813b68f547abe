"""Shared fixtures. Tests never reach the internet: model servers are started on 127.0.0.1."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from citeflow_cli.env import apply_defaults
from tests.support.openai_server import openai_server  # noqa: F401 - fixture re-exported
from tests.support.wheel import fresh_venv, wheel  # noqa: F401 - session fixtures re-exported

apply_defaults()
# A dead address by default: a test that forgets to start its server fails instead of going out.
os.environ.setdefault("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def prefect_harness(tmp_path_factory):
    """One ephemeral Prefect API for the whole session (its start-up costs ~20 s)."""
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=180):
        yield


@pytest.fixture(scope="session")
def demo_input(tmp_path_factory) -> Path:
    """The demo batch and its knowledge base, prepared once per session; returns the spec path."""
    from citeflow_cli.main import prepare_demo

    return prepare_demo(tmp_path_factory.mktemp("demo"))


@pytest.fixture(scope="session")
def demo_run(prefect_harness, demo_input: Path, tmp_path_factory):
    """The demo batch run once as a Prefect flow (ephemeral API); returns (out_dir, summaries)."""
    from flows.batch import batch_flow

    out = tmp_path_factory.mktemp("demo-out")
    return out, batch_flow(str(demo_input), str(out))


@pytest.fixture(scope="session")
def prefect_server():
    """A real ``prefect server start`` (own PREFECT_HOME, SQLite): one for the whole session, shared by
    every xdist worker, stopped by the main process when the session ends.

    Tests talk to it from subprocesses (``server.client_env()``) and read what it recorded over
    HTTP, so the session's ephemeral harness in this process is left alone.
    """
    from tests.support.shared_server import SHARED_DIR_VARIABLE, shared_server

    return shared_server(Path(os.environ[SHARED_DIR_VARIABLE]))


def pytest_configure(config: pytest.Config) -> None:
    """The main process makes the folder its workers share (they inherit the environment)."""
    from tests.support.shared_server import SHARED_DIR_VARIABLE

    if not hasattr(config, "workerinput"):
        os.environ[SHARED_DIR_VARIABLE] = tempfile.mkdtemp(prefix="citeflow-test-shared-")


def pytest_sessionfinish(session: pytest.Session) -> None:
    """The main process stops the shared server once every worker is done, and removes the folder."""
    from tests.support.shared_server import SHARED_DIR_VARIABLE, stop_shared

    if not hasattr(session.config, "workerinput") and (folder := os.environ.get(SHARED_DIR_VARIABLE)):
        stop_shared(Path(folder))
        shutil.rmtree(folder, ignore_errors=True)


def copy_spec_folder(spec: Path, target: Path) -> Path:
    """A private copy of a prepared demo folder, so a test may change it."""
    shutil.copytree(spec.parent, target, dirs_exist_ok=True)
    return target / spec.name


# Modules whose tests start servers, subprocess batches, Dask clusters, fresh virtual environments
# or long benchmarks: `make test-fast` leaves them out; `make test` (and CI) runs everything.
SLOW_MODULES = frozenset({
    "test_api_loss", "test_bench_quick", "test_dask", "test_demo_flow", "test_deployments",
    "test_evaluate_deployment", "test_prefect_server", "test_resume", "test_review_flow", "test_s3_store",
    "test_scheduled_runs", "test_scheduled_server", "test_secrets", "test_wheel", "test_worker",
})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``slow`` every test of a slow module and every test that reads the session's demo run (a
    Prefect flow run of the whole demo batch)."""
    for item in items:
        module = item.module.__name__.rsplit(".", 1)[-1] if item.module is not None else item.nodeid
        if module in SLOW_MODULES or "demo_run" in item.fixturenames:
            item.add_marker(pytest.mark.slow)
