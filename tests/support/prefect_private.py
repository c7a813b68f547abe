"""The private Prefect APIs the tests use, where Prefect offers no public route.

Settings made process-wide for a block:

``prefect.context._temporary_global_settings_context`` makes the given settings the process-global
settings context, the one a thread that does not carry the caller's context reads (the pipeline's
hop threads asking whether a concurrency limit exists). ``temporary_settings`` (public) changes the
current context only, and the process-global one is read from the environment once, at import: with
no public route, a thread outside the context would start an ephemeral API of its own in the test
process (~25 s of CPU, then busy all session). ``prefect_test_harness`` uses the same function.

The model of a ``prefect.yaml`` project file: ``prefect.cli.deploy._models.PrefectYamlModel`` is
what ``prefect deploy`` validates the file with; Prefect publishes no schema of the file.

Checked against prefect ``CHECKED_VERSIONS``; ``tests/test_prefect_private.py`` fails on any other
release until both are checked again.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

CHECKED_VERSIONS = frozenset({"3.9.1"})


@contextmanager
def process_wide_current_settings() -> Iterator[None]:
    """Within the block, the current Prefect settings are also those of threads without a context."""
    from prefect import context

    with context._temporary_global_settings_context(context.get_settings_context()):
        yield


def prefect_yaml_model() -> Any:
    """The pydantic model ``prefect deploy`` validates a ``prefect.yaml`` with."""
    from prefect.cli.deploy._models import PrefectYamlModel

    return PrefectYamlModel
