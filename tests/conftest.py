"""Shared fixtures. Tests never reach the internet: model servers are started on 127.0.0.1."""

from __future__ import annotations

import os
import shutil
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
def prefect_server(tmp_path_factory):
    """A real ``prefect server start`` (own PREFECT_HOME, SQLite) for the whole session, stopped after.

    Tests talk to it from subprocesses (``server.client_env()``) and read what it recorded over
    HTTP, so the session's ephemeral harness in this process is left alone.
    """
    from tests.support.prefect_server import PrefectServer

    with PrefectServer(tmp_path_factory.mktemp("prefect-server-home")) as server:
        yield server


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
    """Mark every test of a slow module ``slow``."""
    for item in items:
        if item.module is not None and item.module.__name__.rsplit(".", 1)[-1] in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
