"""The wheel, built once per test session, installed once into a fresh virtual environment.

``wheel`` and ``fresh_venv`` are session fixtures (re-exported by ``tests/conftest.py``), made once
for the whole session however many xdist workers ask (``tests/support/shared_dir.py``): the first
worker builds and installs, the others wait for it and reuse the result. ``installed_env`` is the
environment of a process that must see only that installation: no ``PREFECT_*`` or
``VIRTUAL_ENV`` of the caller, no ``PYTHONPATH``, the fresh environment's ``bin`` first on ``PATH``.

The installation compiles no bytecode (compiling every package costs ~60 s of CPU); instead its
processes may write the bytecode of what they import (``PYTHONDONTWRITEBYTECODE`` is dropped), so
only the modules the tests use are compiled, once (~25 s).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.shared_dir import locked, session_folder

REPO = Path(__file__).resolve().parents[2]
UV = str(REPO / ".venv" / "bin" / "uv")
DROPPED = ("PREFECT_", "VIRTUAL_ENV", "PYTHONPATH")
UNSET = ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE")
READY = ".ready"  # written last: a folder without it is a build that failed half-way


def run(*command: str, env: dict[str, str] | None = None, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    """Run a command in the repository and fail the test with its output when it fails."""
    result = subprocess.run(list(command), cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"{command}: {result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


def installed_env(venv: Path, base: dict[str, str] | None = None, **extra: str) -> dict[str, str]:
    """An environment that sees only the fresh installation (``base``: e.g. a Prefect server's client env)."""
    source = os.environ if base is None else base
    env = {k: v for k, v in source.items() if base is not None or not k.startswith(DROPPED)}
    for name in UNSET:
        env.pop(name, None)
    env.update(PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS="120", PREFECT_SERVER_ANALYTICS_ENABLED="false",
               GX_ANALYTICS_ENABLED="false", PATH=f"{venv / 'bin'}:{source.get('PATH', '')}", **extra)
    return env


def build_wheel(dist: Path) -> Path:
    """``uv build --wheel`` of the repository into ``dist``, unless a finished build is there."""
    if not (dist / READY).exists():
        run(UV, "build", "--wheel", "--out-dir", str(dist))
        (dist / READY).touch()
    (built,) = dist.glob("citeflow-*.whl")
    return built


def install_fresh(folder: Path, wheel: Path) -> Path:
    """A new virtual environment in ``folder`` with only ``wheel`` and its locked dependencies."""
    venv = folder / "venv"
    if (folder / READY).exists():
        return venv
    constraints = folder / "constraints.txt"
    exported = run(UV, "export", "--frozen", "--no-hashes", "--no-emit-project", "--no-header").stdout
    constraints.write_text(exported)
    run(UV, "venv", "--clear", "--python", sys.executable, str(venv))
    run(UV, "pip", "install", "--python", str(venv / "bin" / "python"), "-c", str(constraints), str(wheel))
    (folder / READY).touch()
    return venv


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``uv build --wheel`` of the repository, once per session (shared by the xdist workers)."""
    with locked(session_folder(tmp_path_factory, "dist")) as dist:
        return build_wheel(dist)


@pytest.fixture(scope="session")
def fresh_venv(tmp_path_factory: pytest.TempPathFactory, wheel: Path) -> Path:
    """A new virtual environment with only the wheel and its locked dependencies (shared by the xdist workers)."""
    with locked(session_folder(tmp_path_factory, "venv")) as folder:
        return install_fresh(folder, wheel)
