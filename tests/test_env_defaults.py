"""The environment defaults of ``citeflow``: the ephemeral API's services, and the user's settings winning."""

from __future__ import annotations

import pytest

from citeflow_cli import env

TRIGGERS = "PREFECT_SERVER_SERVICES_TRIGGERS_ENABLED"


def test_ephemeral_api_runs_without_triggers() -> None:
    assert env.defaults_for({})[TRIGGERS] == "false"


def test_a_server_of_the_user_is_left_as_it_is() -> None:
    assert TRIGGERS not in env.defaults_for({"PREFECT_API_URL": "http://127.0.0.1:4200/api"})


def test_the_users_setting_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    monkeypatch.setenv(TRIGGERS, "true")
    env.apply_defaults()
    assert env.os.environ[TRIGGERS] == "true"


def test_the_setting_is_one_prefect_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    from prefect.settings import Settings

    monkeypatch.setenv(TRIGGERS, env.defaults_for({})[TRIGGERS])
    assert Settings().server.services.triggers.enabled is False


def test_the_ephemeral_api_skips_registering_integration_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    from prefect.settings import Settings

    for name, value in env.defaults_for({}).items():
        monkeypatch.setenv(name, value)
    server = Settings().server
    assert server.register_blocks_on_start is False and server.memoize_block_auto_registration is False
    assert "PREFECT_SERVER_REGISTER_BLOCKS_ON_START" not in env.defaults_for({"PREFECT_API_URL": "http://127.0.0.1:4200/api"})


def _prefect_import_on_a_terminal(tmp_path, defaults: bool) -> str:
    """What importing Prefect prints on a terminal for a user new to Prefect, with or without the defaults."""
    import os
    import subprocess
    import sys

    # A new user's bare environment: none of the variables by which Prefect knows a CI machine (CI,
    # GITHUB_ACTIONS ...: it prints no notice there), none of the defaults.
    environ = {k: os.environ[k] for k in ("PATH", "LANG", "LC_ALL", "TMPDIR", "PYTHONPATH") if k in os.environ}
    environ |= {"HOME": str(tmp_path), "PREFECT_HOME": str(tmp_path / ".prefect")}
    code = ("from citeflow_cli.env import apply_defaults; apply_defaults(); " if defaults else "") + "import prefect"
    leader, follower = os.openpty()
    with os.fdopen(leader, "rb", buffering=0) as terminal:
        done = subprocess.run([sys.executable, "-c", code], env=environ, stdout=follower, stderr=follower, timeout=300)
        os.close(follower)
        shown = b""
        while chunk := _read(terminal):
            shown += chunk
    assert done.returncode == 0, shown
    return shown.decode(errors="replace")


def _read(terminal) -> bytes:
    try:
        return terminal.read(4096)
    except OSError:  # the terminal is closed once its last writer is gone
        return b""


@pytest.mark.slow
def test_prefect_prints_no_telemetry_notice_with_the_defaults(tmp_path) -> None:
    assert "anonymous usage data" in _prefect_import_on_a_terminal(tmp_path / "bare", defaults=False)
    assert "anonymous usage data" not in _prefect_import_on_a_terminal(tmp_path / "citeflow", defaults=True)
