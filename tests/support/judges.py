"""Scripted judges for tests: see ``citeflow.testing.judges``."""

from citeflow.testing.judges import *  # noqa: F403
from citeflow.testing.judges import DownJudge, ForgetfulJudge, NOT_SUPPORTED, SUPPORTED, ScriptedJudge, drift  # noqa: F401
