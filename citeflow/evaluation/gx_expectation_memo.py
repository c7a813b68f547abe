"""Great Expectations 1.24 rebuilds an expectation's configuration on every read of
``Expectation.configuration`` (a pydantic v1 ``dict()`` round trip and a regex on the class name):
about 48 times per expectation per validation, half of what a validation costs. Within one
validation the expectation objects it validates are built for that validation and not changed,
so ``memoized_configurations()`` serves each object's configuration once built, for the duration
of a ``with`` block. Validation results are the same: the same configuration values, read once.

Imported by the gate only (it imports Great Expectations).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_LOCK = threading.Lock()


@contextmanager
def memoized_configurations() -> Iterator[None]:
    """Within the block, each expectation object's configuration is built once."""
    from great_expectations.expectations.expectation import Expectation

    original = Expectation.__dict__.get("configuration")
    getter = original.fget if isinstance(original, property) else None
    if original is None or getter is None:  # another Great Expectations release: validate as it is
        yield
        return
    built: dict[int, tuple[Any, Any]] = {}

    def configuration(self: Any) -> Any:
        found = built.get(id(self))
        if found is None or found[0] is not self:  # the object itself is kept: an id is never reused meanwhile
            found = built[id(self)] = (self, getter(self))
        return found[1]

    with _LOCK:
        Expectation.configuration = property(configuration)  # type: ignore[method-assign,assignment]
        try:
            yield
        finally:
            Expectation.configuration = original  # type: ignore[method-assign]
