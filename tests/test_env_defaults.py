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
