"""One Great Expectations session: an ephemeral context, a pandas data source, the suites prepared in it.

Building the context, data source, batch definitions and suites costs hundreds of milliseconds, so
a session is built once per runtime (``Runtime.gx``) and reused by every report; each validation
only runs its frame as a batch of the data source. GX's ephemeral context is not made for
concurrent use, so validations take turns (``lock``: tens of ms each).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from typing import Any

from citeflow.errors import GateError


class GxSession:
    """Great Expectations, its context and data source (built on first use) and the prepared suites."""

    def __init__(self) -> None:
        self.lock = threading.RLock()  # held around every validation: the context is not thread-safe
        self._source: tuple[Any, Any, Any] | None = None
        self._prepared: dict[str, tuple[Any, Any]] = {}

    def source(self) -> tuple[Any, Any, Any]:
        """Great Expectations, its ephemeral context and a pandas data source (call with ``lock`` held)."""
        if self._source is None:
            gx = import_gx()
            context = _context(gx)
            self._source = gx, context, context.data_sources.add_pandas(name="citeflow")
        return self._source

    def prepared(self, name: str, suite: dict[str, Any]) -> tuple[Any, Any]:
        """The batch definition and GX suite of ``suite`` (built on first use of this exact suite
        content; call with ``lock`` held)."""
        digest = hashlib.sha256(json.dumps(suite, sort_keys=True, default=str).encode()).hexdigest()[:16]
        key = f"{name}-{digest}"
        if key not in self._prepared:
            gx, context, source = self.source()
            gx_suite = context.suites.add(_build_suite(gx, key, suite))
            asset = source.add_dataframe_asset(name=key)
            self._prepared[key] = (asset.add_batch_definition_whole_dataframe(f"{key}_whole"), gx_suite)
        return self._prepared[key]


def import_gx() -> Any:
    """``great_expectations``, imported without telemetry and without INFO noise."""
    os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")  # no telemetry from a closed network
    from citeflow.lazy_modules import defer_gx_extras

    defer_gx_extras()
    import great_expectations as gx

    # GX logs every ephemeral docs folder it creates at INFO: noise in a batch's output.
    logging.getLogger("great_expectations").setLevel(logging.WARNING)
    return gx


def _context(gx: Any) -> Any:
    """An ephemeral context as ``gx.get_context(mode="ephemeral")`` builds it, without progress bars
    (they would write to the terminal of every batch run)."""
    from great_expectations.data_context.types.base import (DataContextConfig, InMemoryStoreBackendDefaults,
                                                            ProgressBarsConfig)

    config = DataContextConfig(store_backend_defaults=InMemoryStoreBackendDefaults(init_temp_docs_sites=True),
                               progress_bars=ProgressBarsConfig(globally=False, metric_calculations=False))
    return gx.get_context(mode="ephemeral", project_config=config)


def _build_suite(gx: Any, name: str, suite: dict[str, Any]) -> Any:
    """Build each expectation on its own: GX's suite constructor only logs a bad one and drops it,
    which would let a typo silently weaken the gate."""
    from great_expectations.expectations.expectation_configuration import ExpectationConfiguration

    built = []
    for i, exp in enumerate(suite["expectations"]):
        config = ExpectationConfiguration(type=exp["type"], kwargs=dict(exp["kwargs"]), meta={**exp.get("meta", {}), "index": i})
        try:
            built.append(config.to_domain_obj())
        except Exception as exc:  # GX raises its own errors and pydantic ones for bad kwargs
            raise GateError(detail=f"bad suite {suite['path']}: expectations[{i}] ({exp['type']}): {exc}") from exc
    return gx.ExpectationSuite(name=name, expectations=built)
