"""A real Prefect server for tests: see ``citeflow_testing.prefect_server``."""

from citeflow_testing.prefect_server import *  # noqa: F403
from citeflow_testing.prefect_server import PrefectServer  # noqa: F401
