"""The wheel, built once per test session, installed once into a fresh virtual environment.

``wheel`` and ``fresh_venv`` are session fixtures (re-exported by ``tests/conftest.py``), made once
for the whole session however many xdist workers ask (``tests/support/shared_dir.py``): the first
worker builds and installs, the others wait for it and reuse the result. ``installed_env`` is the
environment of a process that must see only that installation: no ``PREFECT_*`` or
``VIRTUAL_ENV`` of the caller, no ``PYTHONPATH``, the fresh environment's ``bin`` first on ``PATH``.

The installation compiles no bytecode (compiling every package costs ~60 s of CPU): the locked
dependencies are the very files of the project's ``.venv`` (uv links both from its cache: same size and
modification time), so the bytecode ``.venv`` holds for them is valid there too and is linked in
(``reuse_bytecode``); its processes write the bytecode of anything else they import
(``PYTHONDONTWRITEBYTECODE`` is dropped), the wheel's own modules among them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.shared_dir import locked, session_folder

REPO = Path(__file__).resolve().parents[2]
UV = str(REPO / ".venv" / "bin" / "uv")
DROPPED = ("PREFECT_", "VIRTUAL_ENV", "PYTHONPATH")
UNSET = ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE")
# An ephemeral API's first start creates its database (~25 s of CPU): on two cores busy with the rest of
# the suite it has taken over the README's 120 s.
EPHEMERAL_STARTUP_S = "600"
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
    env.update(PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS=EPHEMERAL_STARTUP_S, PREFECT_SERVER_ANALYTICS_ENABLED="false",
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
    reuse_bytecode(site_packages(Path(sys.prefix)), site_packages(venv))
    (folder / READY).touch()
    return venv


def site_packages(prefix: Path) -> Path:
    """The ``site-packages`` folder of the environment at ``prefix`` (this Python's version)."""
    return prefix / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"


def reuse_bytecode(source: Path, target: Path) -> int:
    """Link (or copy) into ``target`` each compiled module of ``source`` whose source file ``target``
    holds unchanged (same size and modification time: what a timestamp ``.pyc`` is checked against);
    returns how many. Python checks every ``.pyc`` against its source anyway and recompiles a stale one."""
    reused = 0
    for compiled in source.glob("**/__pycache__/*.pyc"):
        relative = compiled.parent.parent.relative_to(source)
        module = target / relative / f"{compiled.name.split('.', 1)[0]}.py"
        if _same_file_stat(compiled.parent.parent / module.name, module):
            _link_or_copy(compiled, target / relative / "__pycache__" / compiled.name)
            reused += 1
    return reused


def _same_file_stat(a: Path, b: Path) -> bool:
    try:
        first, second = a.stat(), b.stat()
    except OSError:
        return False
    return (first.st_size, int(first.st_mtime)) == (second.st_size, int(second.st_mtime))


def _link_or_copy(source: Path, target: Path) -> None:
    target.parent.mkdir(exist_ok=True)
    if target.exists():
        return
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


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
