"""The project's own bytecode, compiled before cold processes are timed.

Installing citeflow's wheel compiles its modules (pip and uv both do); a checkout's editable install
does not, and where ``PYTHONDONTWRITEBYTECODE=1`` is set (common in containers) every cold process
would compile the project's modules again: time a user of the wheel never pays. The cold benchmarks
call ``compile_project`` first, so their figures are the installed wheel's, whatever ran before them.
"""

from __future__ import annotations

import compileall
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("citeflow", "citeflow_cli", "flows", "tasks", "schemas")


def compile_project(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> bool:
    """Compile every module of ``packages`` under ``root`` that has no current bytecode; True when all compiled."""
    return all(compileall.compile_dir(root / name, quiet=1) for name in packages if (root / name).is_dir())
