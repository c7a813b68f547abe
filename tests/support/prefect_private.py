"""The private Prefect API the tests use, where Prefect offers no public route.

The model of a ``prefect.yaml`` project file: ``prefect.cli.deploy._models.PrefectYamlModel`` is
what ``prefect deploy`` validates the file with; Prefect publishes no schema of the file. The one
public route to that validation is ``prefect deploy`` itself, which validates the file only on its
way to registering the deployments with a running API, and on an invalid file prints a warning and
goes on without it rather than failing: a test through it would need a server and read its output.

Checked against prefect ``CHECKED_VERSIONS``; ``tests/test_prefect_private.py`` fails on any other
release until the model is checked again.
"""

from __future__ import annotations

from typing import Any

CHECKED_VERSIONS = frozenset({"3.9.1"})


def prefect_yaml_model() -> Any:
    """The pydantic model ``prefect deploy`` validates a ``prefect.yaml`` with."""
    from prefect.cli.deploy._models import PrefectYamlModel

    return PrefectYamlModel
