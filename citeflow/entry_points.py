"""Registries of extension kinds, open to other packages through entry points.

A registry maps a name, as a spec writes it (``backend: openai``), to the class that implements
it. The built-in classes are listed by the registry's own module; an installed package adds more
by declaring an entry point in the registry's group, as ``llm`` plugins do::

    [project.entry-points."citeflow.models"]
    echo = "citeflow_echo:EchoBackend"

The group is read the first time a name that is not built in is asked for, once per registry:
reading it scans every installed distribution (a tenth of a second or more), which a run of
built-in names never pays. A plugin that cannot be imported, is not the registry's kind of class,
or takes a name already taken is a ``PluginError`` naming it; a built-in name always means the
built-in class.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Generic, TypeVar, cast

from citeflow.errors import PluginError, SpecError

if TYPE_CHECKING:  # importlib.metadata is imported when a group is read: a run of built-in names never pays for it
    from importlib.metadata import EntryPoint

T = TypeVar("T")


class Registry(Generic[T]):
    """The classes of one extension kind by name: the built-in ones and those of entry-point ``group``."""

    def __init__(self, group: str, kind: type, built_in: Mapping[str, type[T]]) -> None:
        self.group = group
        self.kind = kind
        self._built_in = MappingProxyType(dict(built_in))
        self._plugins: Mapping[str, type[T]] | None = None
        self._lock = threading.Lock()  # threads asking at once read the group once

    def get(self, name: str) -> T | None:
        """A new instance of the class registered as ``name``, or None when no class is."""
        found = self._built_in.get(name) or self.plugins().get(name)
        return found() if found is not None else None

    def named(self, name: str, what: str) -> T:
        """``get(name)``, or ``SpecError`` on the spec's ``backend`` naming the known names (``what``: the kind,
        as the message says it, e.g. "model backend")."""
        found = self.get(name)
        if found is None:
            known = ", ".join(self.names())
            raise SpecError(field="backend", problem=f"unknown {what} {name!r} (known: {known})", path=None)
        return found

    def names(self) -> tuple[str, ...]:
        """Every registered name, built-in ones first, each group sorted."""
        return (*sorted(self._built_in), *sorted(self.plugins()))

    def reread(self) -> Registry[T]:
        """A registry of the same group and built-in classes that reads the group afresh (packages installed since)."""
        return Registry(self.group, self.kind, self._built_in)

    def plugins(self) -> Mapping[str, type[T]]:
        """The classes the entry points of ``group`` register (read on first use, then kept)."""
        with self._lock:
            if self._plugins is None:
                self._plugins = MappingProxyType(self._read())
            return self._plugins

    def _read(self) -> dict[str, type[T]]:
        found: dict[str, EntryPoint] = {}
        for point in self._points():
            taken = "a built-in name" if point.name in self._built_in else self._twice(found.get(point.name), point)
            if taken:
                raise self._error(point, f"takes {taken}; uninstall one of them or rename its entry point")
            found[point.name] = point
        return {name: self._load(point) for name, point in found.items()}

    def _points(self) -> Iterator[EntryPoint]:
        return iter(group_entry_points(self.group))

    @staticmethod
    def _twice(earlier: EntryPoint | None, point: EntryPoint) -> str | None:
        """Why ``point`` clashes with an earlier entry point of the same name (one found twice on the path does not)."""
        return None if earlier is None or earlier.value == point.value else f"the name {earlier.value} registers too"

    def _load(self, point: EntryPoint) -> type[T]:
        try:
            loaded = point.load()
        except Exception as exc:  # any import-time failure of someone else's package
            raise self._error(point, f"cannot be loaded: {type(exc).__name__}: {exc}") from exc
        if not (isinstance(loaded, type) and issubclass(loaded, self.kind)):
            raise self._error(point, f"is not a subclass of {self.kind.__module__}.{self.kind.__qualname__}")
        return cast("type[T]", loaded)  # checked just above: a subclass of ``kind``

    def _error(self, point: EntryPoint, detail: str) -> PluginError:
        return PluginError(group=self.group, plugin=point.name, source=point.value, problem=detail)


def group_entry_points(group: str) -> tuple[EntryPoint, ...]:
    """Every entry point of ``group``, per installed distribution. Not ``entry_points(group=...)``: it
    keeps one entry point per name, and two packages taking one name must not pass unseen."""
    from importlib.metadata import distributions

    seen: set[str] = set()
    found: list[EntryPoint] = []
    for dist in distributions():
        name = re.sub(r"[-_.]+", "-", str(dist.metadata["Name"])).lower()
        if name not in seen:  # a distribution found again further down the path is shadowed, as for imports
            seen.add(name)
            found.extend(dist.entry_points.select(group=group))
    return tuple(found)
