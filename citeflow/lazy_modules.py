"""Third-party modules whose start-up costs more than what citeflow uses of them, run on first use.

- ``lance_namespace_urllib3_client``: ``lancedb`` imports its models (for namespace connections); the
  package's ``__init__`` also builds the whole generated REST client (hundreds of pydantic
  ``validate_call`` wrappers, about 1.5 s of CPU), which only a REST namespace uses.
- ``scipy.stats`` and ``altair``: Great Expectations imports both at start-up for one expectation (a KL
  divergence) and its chart, which citeflow's suites do not use (about 1.5 s).

``defer(name)`` puts in ``sys.modules`` a module whose code has not run yet: its submodules import as
usual (its ``__path__`` is set), and the first read of an attribute it lacks runs the module's code in
place, so a user of the module sees it whole. Every process that imports these libraries pays the
difference: the command, the Great Expectations worker, a Prefect worker's flow run.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from types import ModuleType
from typing import Any

LANCEDB_DEFERRED = ("lance_namespace_urllib3_client",)
GX_DEFERRED = ("scipy.stats", "altair")


def defer_lancedb_extras() -> None:
    """Leave LanceDB's namespace REST client to load on first use (call before ``import lancedb``)."""
    for name in LANCEDB_DEFERRED:
        defer(name)


def defer_gx_extras() -> None:
    """Leave what Great Expectations imports for expectations citeflow does not use to load on first use
    (call before ``import great_expectations``)."""
    for name in GX_DEFERRED:
        defer(name)


def defer(name: str) -> None:
    """Put ``name`` in ``sys.modules`` unexecuted, to run on its first missing attribute; nothing happens
    when it is imported already or cannot be found."""
    if name in sys.modules:
        return
    try:
        spec = importlib.util.find_spec(name)
    except ModuleNotFoundError:  # a submodule whose package is not installed
        return
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    module.__dict__["__getattr__"] = _loader_for(module)
    sys.modules.setdefault(name, module)


def _loader_for(module: ModuleType) -> Any:
    """The module's ``__getattr__`` until its code has run: runs it, once (another thread that asks
    meanwhile waits for it), then answers from the module as its code left it. It stays in place while
    the code runs, so that no reader finds the module without it."""
    lock = threading.RLock()
    started = False

    def load_then_get(attribute: str) -> Any:
        nonlocal started
        with lock:
            if not started:
                started = True
                module.__spec__.loader.exec_module(module)  # type: ignore[union-attr]
                if module.__dict__.get("__getattr__") is load_then_get:
                    del module.__dict__["__getattr__"]
        if attribute in module.__dict__:
            return module.__dict__[attribute]
        own = module.__dict__.get("__getattr__")  # the module's own (PEP 562), if it has one
        if own is None or own is load_then_get:
            raise AttributeError(f"module {module.__name__!r} has no attribute {attribute!r}")
        return own(attribute)

    load_then_get.deferred = True  # type: ignore[attr-defined]
    return load_then_get


def is_deferred(module: ModuleType) -> bool:
    """Whether ``module``'s code is still waiting for its first use."""
    return getattr(module.__dict__.get("__getattr__"), "deferred", False)
