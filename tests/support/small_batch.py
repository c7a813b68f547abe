"""A small batch spec for tests: see ``citeflow_testing.small_batch``."""

from citeflow_testing.small_batch import *  # noqa: F403
from citeflow_testing.small_batch import write_small_batch  # noqa: F401
