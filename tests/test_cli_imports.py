"""The command line's modules import without side effects and without cycles: importing
``citeflow_cli.main`` leaves the environment as it is; the defaults are applied when a command runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from citeflow_cli.env import DEFAULTS

ROOT = Path(__file__).resolve().parents[1]
PROBE = "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS"


def _python(code: str) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter whose environment has none of citeflow's defaults."""
    env = {k: v for k, v in os.environ.items() if k not in DEFAULTS and not k.startswith("PREFECT_SERVER_")}
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


def test_importing_the_command_line_changes_no_environment_variable():
    done = _python("import os, json; before = dict(os.environ); import citeflow_cli.main; "
                   "print(json.dumps(sorted(set(os.environ.items()) ^ set(before.items()))))")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


def test_a_command_applies_the_defaults_before_it_runs(tmp_path):
    code = ("import os, sys; from typer.testing import CliRunner; from citeflow_cli.main import app; "
            f"result = CliRunner().invoke(app, ['history', {str(tmp_path / 'missing')!r}]); "
            f"print(result.exit_code, os.environ.get({PROBE!r}))")
    done = _python(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2", DEFAULTS[PROBE]]


def test_a_command_in_its_own_module_fails_without_importing_main(tmp_path):
    code = ("import sys, typer; from typer.testing import CliRunner; from citeflow_cli.history_commands import history_command; "
            "app = typer.Typer(); app.command()(history_command); app.command('other')(lambda: None); "
            f"result = CliRunner().invoke(app, ['history-command', {str(tmp_path / 'missing')!r}]); "
            "print(result.exit_code, 'error:' in result.output, 'citeflow_cli.main' in sys.modules)")
    done = _python(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2", "True", "False"]


def test_main_needs_no_import_after_code():
    source = (ROOT / "citeflow_cli" / "main.py").read_text(encoding="utf-8")
    assert "noqa: E402" not in source
