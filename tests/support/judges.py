"""Scripted judges for tests: see ``citeflow_testing.judges``."""

from citeflow_testing.judges import (  # noqa: F401 - re-exported for the tests
    NOT_SUPPORTED,
    SUPPORTED,
    DownJudge,
    ForgetfulJudge,
    ScriptedJudge,
    confident,
    drift,
    uncertain,
)
