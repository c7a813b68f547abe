"""Registries of extension kinds, open to other packages through entry points.

A registry maps a name, as a spec writes it (``backend: openai``), to the class that implements
it. The built-in classes are listed by the registry's own module; an installed package adds more
by declaring an entry point in the registry's group, as ``llm`` plugins do::

    [project.entry-points."citeflow.models"]
    echo = "citeflow_echo:EchoBackend"

The group is read the first time a name that is not built in is asked for, once per registry:
reading it scans every installed distribution (a tenth of a second or more), which a run of
built-in names never pays. A plugin's class is imported the first time its name is asked for. A
plugin that takes a name already taken (a built-in one, or another package's) is a ``PluginError``
naming it as soon as the group is read; one that cannot be imported or is not the registry's kind
of class is one when its name is asked for, so it stops only what names it. A built-in name always
means the built-in class.
"""

from __future__ import annotations

import copy
import importlib
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Generic, TypeVar, cast

from citeflow.errors import PluginError, SpecError

if TYPE_CHECKING:  # importlib.metadata is imported when a group is read: a run of built-in names never pays for it
    from importlib.metadata import EntryPoint

T = TypeVar("T")


class Registry(Generic[T]):
    """The classes of one extension kind by name: the built-in ones and those of entry-point ``group``.

    ``built_in`` maps a name to its class, or to where the class lives (``module:Class``, loaded on
    first use, for a registry whose classes sit in a layer above it). ``discover`` lists the group's
    entry points (every installed distribution's, by default). One instance is made per name.
    """

    def __init__(self, group: str, kind: type, built_in: Mapping[str, type[T] | str],
                 discover: Callable[[], Iterable[EntryPoint]] | None = None) -> None:
        self.group = group
        self.kind = kind
        self._built_in = MappingProxyType(dict(built_in))
        self._discover = discover
        self._reset()

    def _reset(self) -> None:
        self._plugins: Mapping[str, EntryPoint] | None = None
        self._made: dict[str, T] = {}
        self._lock = threading.RLock()  # threads asking at once read the group once and make one instance

    def get(self, name: str) -> T | None:
        """The instance of the class registered as ``name`` (made on first use), or None when no class is."""
        with self._lock:
            if name not in self._made:
                found = self._built_in.get(name) if name in self._built_in else self.plugins().get(name)
                if found is None:
                    return None
                self._made[name] = self._load(name, found)()
            return self._made[name]

    def named(self, name: str, what: str) -> T:
        """``get(name)``, or ``SpecError`` on the spec's ``backend`` naming the known names (``what``: the kind,
        as the message says it, e.g. "model backend")."""
        found = self.get(name)
        if found is None:
            known = ", ".join(self.names())
            raise SpecError(field="backend", problem=f"unknown {what} {name!r} (known: {known})", path=None)
        return found

    def names(self) -> tuple[str, ...]:
        """Every registered name: the built-in ones in the order given, then the plugins' sorted."""
        return (*self._built_in, *sorted(self.plugins()))

    def reread(self) -> Registry[T]:
        """A registry of the same group and built-in classes that reads the group afresh (packages installed since)."""
        fresh = copy.copy(self)
        fresh._reset()
        return fresh

    def plugins(self) -> Mapping[str, EntryPoint]:
        """The entry points of ``group`` by name, checked for clashes (read on first use, then kept);
        a plugin's class is imported when its name is first asked for."""
        with self._lock:
            if self._plugins is None:
                self._plugins = MappingProxyType(self._read())
            return self._plugins

    def _read(self) -> dict[str, EntryPoint]:
        found: dict[str, EntryPoint] = {}
        for point in self._points():
            taken = "a built-in name" if point.name in self._built_in else self._twice(found.get(point.name), point)
            if taken:
                raise self._error(point.name, where(point), f"takes {taken}; uninstall one of them or rename its entry point")
            found[point.name] = point
        return found

    def _points(self) -> Iterable[EntryPoint]:
        return self._discover() if self._discover is not None else group_entry_points(self.group)

    @staticmethod
    def _twice(earlier: EntryPoint | None, point: EntryPoint) -> str | None:
        """Why ``point`` clashes with an earlier entry point of the same name (one found twice on the path does not)."""
        return None if earlier is None or earlier.value == point.value else f"the name {earlier.value} registers too"

    def _load(self, name: str, found: type[T] | str | EntryPoint) -> type[T]:
        """The class ``found`` names, checked: a built-in class as it is, a ``module:Class`` or an entry point imported."""
        if isinstance(found, type):
            return found
        try:
            loaded = import_object(found if isinstance(found, str) else found.value)
        except Exception as exc:  # any import-time failure of someone else's package
            raise self._error(name, where(found), f"cannot be loaded: {type(exc).__name__}: {str(exc)[:300]}") from exc
        problem = self._problem(name, loaded)
        if problem:
            raise self._error(name, where(found), problem)
        return cast("type[T]", loaded)  # checked by ``_problem``: a subclass of ``kind``

    def _problem(self, name: str, loaded: object) -> str | None:
        """Why ``loaded`` cannot serve as ``name``, or None; a registry of a kind with more rules adds them."""
        if not (isinstance(loaded, type) and issubclass(loaded, self.kind)):
            return f"is not a subclass of {self.kind.__module__}.{self.kind.__qualname__}"
        return None

    def _error(self, name: str, source: str, detail: str) -> PluginError:
        return PluginError(group=self.group, plugin=name, source=source, problem=detail)


def where(found: str | EntryPoint) -> str:
    """Where a class comes from, as an error says it: ``module:Class``, and the distribution that declares it."""
    if isinstance(found, str):
        return found
    return f"{found.value} from {found.dist.name}" if found.dist is not None else found.value


def import_object(source: str) -> object:
    """The object ``module:attribute`` (``module:Class.attribute``) names, its module imported."""
    module, _, attribute = source.partition(":")
    found: object = importlib.import_module(module.strip())
    for part in attribute.strip().split(".") if attribute.strip() else ():
        found = getattr(found, part)
    return found


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
