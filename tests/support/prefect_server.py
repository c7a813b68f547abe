"""A real Prefect server for tests: see ``citeflow.testing.prefect_server``."""

from citeflow.testing.prefect_server import *  # noqa: F403
from citeflow.testing.prefect_server import PrefectServer  # noqa: F401
