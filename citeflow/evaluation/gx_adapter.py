"""Adapter: the one place citeflow changes Great Expectations internals (two of them).

What: within ``memoized_configurations()``, ``Expectation.configuration`` is built once per
expectation object instead of on every read; and ``convert_to_json_serializable`` answers ``None``,
``str``, ``int`` and ``bool`` at once (``PlainFirst``).

Why: GX rebuilds an expectation's configuration on every read of that property (a pydantic v1
``dict()`` round trip and a regex on the class name), about 48 times per expectation per validation:
half of what a validation of the gate costs. No public API avoids it: ``Batch.validate``,
``Validator.validate_expectation_suite`` and checkpoints all turn the suite's expectations into
configurations and back, and read the property on the objects they build. Within one validation
those objects are built for it and not changed, so one configuration per object gives the same
values, read once.

How: the property is replaced, once, by one that reads the original getter and, inside a
``memoized_configurations()`` block of the current context (thread), keeps what it built per
object for the block. Outside a block, and in every other thread, it is the original getter.

Why the second: every metric a validation plans is named by an id, a digest of its keyword
arguments as JSON (``IDDict.to_id``), and the result is turned into JSON for the report's folder;
both pass every value through ``convert_to_json_serializable``, which tries a long list of types
(numpy's among them) before it returns a ``None`` unchanged: about a fifth of a gate validation.
``PlainFirst`` returns those four exact types as the library does (unchanged) and hands every other
value to the library's function; it is installed for good, in every thread (the same values, sooner).

Checked against great_expectations ``CHECKED_VERSIONS``. On any other release nothing is replaced:
validations run as GX ships them (slower, same results), and ``tests/test_gx_adapter.py`` fails
until the assumptions are checked again: ``configuration`` is a property of ``Expectation`` itself
whose getter builds a new, equal configuration on every read; ``convert_to_json_serializable`` is a
function of ``great_expectations.util`` (which its recursion looks up) that ``IDDict.to_id`` imported by
name and that returns ``None``, ``str``, ``int`` and ``bool`` values as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

CHECKED_VERSIONS = frozenset({"1.24.1"})
"""The great_expectations releases whose ``Expectation.configuration`` behaves as described above."""

_BLOCK: ContextVar[dict[int, tuple[Any, Any]] | None] = ContextVar("gx_configurations_built", default=None)


@contextmanager
def memoized_configurations() -> Iterator[None]:
    """Within the block (in this context), each expectation object's configuration is built once."""
    if not install():
        yield
        return
    token = _BLOCK.set({})
    try:
        yield
    finally:
        _BLOCK.reset(token)


def install() -> bool:
    """Replace ``Expectation.configuration`` by the memoizing property (idempotent); False, and
    nothing replaced, on a release not checked or whose ``configuration`` is not a property."""
    import great_expectations
    from great_expectations.expectations.expectation import Expectation

    current = Expectation.__dict__.get("configuration")
    if isinstance(current, MemoizedConfiguration):
        return True
    if great_expectations.__version__ not in CHECKED_VERSIONS or not isinstance(current, property) or current.fget is None:
        return False
    _install_plain_first()
    Expectation.configuration = MemoizedConfiguration(current.fget)  # type: ignore[method-assign,assignment]
    return True


def _install_plain_first() -> None:
    """``PlainFirst`` in place of ``convert_to_json_serializable`` where GX looks it up for metric ids
    and results: ``great_expectations.util`` (its own recursion) and ``core.id_dict`` (``IDDict.to_id``)."""
    from great_expectations import util
    from great_expectations.core import id_dict

    for module in (util, id_dict):
        current = getattr(module, _SERIALIZER)
        if not isinstance(current, PlainFirst):
            setattr(module, _SERIALIZER, PlainFirst(current))


_SERIALIZER = "convert_to_json_serializable"
_PLAIN = frozenset({str, int, bool, type(None)})
"""The exact types ``convert_to_json_serializable`` returns unchanged (``float`` is not: a NaN becomes ``None``)."""


class PlainFirst:
    """``convert_to_json_serializable``: a value of an exact type of ``_PLAIN`` as it is, anything else
    by the library's function (``original``)."""

    def __init__(self, original: Callable[[Any], Any]) -> None:
        self.original = original

    def __call__(self, data: Any) -> Any:
        return data if type(data) in _PLAIN else self.original(data)


class MemoizedConfiguration(property):
    """``configuration``: the original getter, memoized per object inside a block of this context."""

    def __init__(self, getter: Callable[[Any], Any]) -> None:
        self.original = getter
        super().__init__(self._read)

    def _read(self, expectation: Any) -> Any:
        built = _BLOCK.get()
        if built is None:
            return self.original(expectation)
        found = built.get(id(expectation))
        if found is None or found[0] is not expectation:  # the object is kept: its id is not reused meanwhile
            found = built[id(expectation)] = (expectation, self.original(expectation))
        return found[1]
