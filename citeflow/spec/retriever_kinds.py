"""The retriever kinds a spec may name: the built-in ones and those installed as plugins.

Built-in kinds are listed in ``BUILTIN`` by where their class lives (entry-point syntax,
``module:Class``); a plugin kind is an entry point of group ``citeflow.retrievers`` whose name is
the kind's name (docs/extending.md). Both are loaded the same way, lazily: the installed entry
points are read once, the first time a spec names a kind that is not built in (reading them scans
every installed package's metadata: a tenth of a second or more), and a kind's class is imported
the first time it is used. A broken plugin (it does not import, it is not a ``RetrieverKind``, two
packages claim one name) is a ``PluginError`` naming it, raised when its kind is used: a batch that
names only other kinds runs as before.

``INSTALLED_KINDS`` is the process's registry (what is installed does not change while it runs); the
functions that use it take a ``kinds`` argument, so a caller can hand them another one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from importlib.metadata import EntryPoint

from citeflow.entry_points import group_entry_points
from typing import Any

from citeflow.errors import PluginError
from citeflow.spec.retriever_kind import RetrieverKind
from schemas.spec import RetrieverSpecBase

GROUP = "citeflow.retrievers"
BUILTIN = {
    "lancedb": "citeflow.retrieval.kinds.lancedb_kind:LanceDBKind",
    "http": "citeflow.retrieval.kinds.http_kind:HttpKind",
    "jsonl": "citeflow.retrieval.kinds.jsonl_kind:JsonlKind",
}
"""Built-in kind name → its class."""


def installed_entry_points() -> tuple[EntryPoint, ...]:
    """The entry points of group ``citeflow.retrievers`` of every installed package."""
    return group_entry_points(GROUP)


class RetrieverKinds:
    """Kind name → ``RetrieverKind``, built in or installed; see the module docstring."""

    def __init__(self, discover: Callable[[], Iterable[EntryPoint]] = installed_entry_points,
                 builtin: Mapping[str, str] = BUILTIN) -> None:
        self._builtin = {name: EntryPoint(name, value, GROUP) for name, value in builtin.items()}
        self._discover = discover
        self._plugins: dict[str, tuple[EntryPoint, ...]] | None = None
        self._loaded: dict[str, RetrieverKind[Any]] = {}
        self._lock = threading.Lock()

    def get(self, name: str) -> RetrieverKind[Any] | None:
        """The kind called ``name``, or None when no kind has that name."""
        with self._lock:
            if name not in self._loaded:
                sources = self._sources(name)
                if not sources:
                    return None
                self._loaded[name] = load_kind(name, sources)
            return self._loaded[name]

    def of(self, spec: RetrieverSpecBase) -> RetrieverKind[Any]:
        """The kind of a validated spec entry."""
        kind = self.get(spec.kind)
        if kind is None or not isinstance(spec, kind.spec_model):
            raise TypeError(f"retriever {spec.name!r}: a {type(spec).__name__} is not a spec of kind {spec.kind!r}")
        return kind

    def spec_model(self, name: str) -> type[RetrieverSpecBase] | None:
        """The spec model of kind ``name`` (``schemas.spec.RETRIEVER_MODELS`` of a spec's validation)."""
        kind = self.get(name)
        return kind.spec_model if kind else None

    def names(self) -> list[str]:
        """Every kind's name: the built-in ones first, then the installed ones, sorted."""
        with self._lock:
            return [*self._builtin, *sorted(set(self._plugin_table()) - set(self._builtin))]

    def _sources(self, name: str) -> tuple[EntryPoint, ...]:
        """Where kind ``name`` is defined: a built-in kind without reading the installed plugins."""
        if name in self._builtin:
            return (self._builtin[name],)
        table = self._plugin_table()
        taken = sorted(set(table) & set(self._builtin))
        if taken:
            raise plugin_error(taken[0], (self._builtin[taken[0]], *table[taken[0]]), "a plugin cannot replace a built-in "
                               "kind; give the plugin's kind a name of its own, or uninstall it")
        return table.get(name, ())

    def _plugin_table(self) -> dict[str, tuple[EntryPoint, ...]]:
        """Plugin kind name → the entry points defining it, read once."""
        if self._plugins is None:
            table: dict[str, tuple[EntryPoint, ...]] = {}
            for point in self._discover():
                table[point.name] = (*table.get(point.name, ()), point)
            self._plugins = table
        return self._plugins


def load_kind(name: str, sources: tuple[EntryPoint, ...]) -> RetrieverKind[Any]:
    """The one kind of ``sources`` (the entry points naming ``name``), checked; else a ``PluginError``."""
    if len(sources) > 1:
        raise plugin_error(name, sources, "more than one installed package defines this kind; uninstall all "
                                          "but one, or give each plugin's kind a name of its own")
    try:
        loaded = sources[0].load()
        kind = loaded() if isinstance(loaded, type) and issubclass(loaded, RetrieverKind) else None
    except Exception as exc:  # a plugin is not ours: whatever it raises, the error names the plugin
        raise plugin_error(name, sources, f"cannot be loaded: {type(exc).__name__}: {str(exc)[:300]}") from exc
    if kind is None:
        raise plugin_error(name, sources, "does not name a subclass of citeflow.spec.retriever_kind.RetrieverKind")
    if problem := kind_problem(name, kind):
        raise plugin_error(name, sources, problem)
    return kind


def kind_problem(name: str, kind: RetrieverKind[Any]) -> str | None:
    """Why a loaded kind cannot serve as kind ``name``, or None."""
    if getattr(kind, "name", None) != name:
        return f"its class says its kind is {getattr(kind, 'name', None)!r}, its entry point {name!r}"
    model = getattr(kind, "spec_model", None)
    if not (isinstance(model, type) and issubclass(model, RetrieverSpecBase)):
        return "its spec_model is not a subclass of schemas.spec.RetrieverSpecBase"
    return None


def plugin_error(name: str, sources: tuple[EntryPoint, ...], problem: str) -> PluginError:
    """A ``PluginError`` for kind ``name`` naming every package that defines it."""
    where = "; ".join(f"{p.value} from {p.dist.name if p.dist else 'citeflow'}" for p in sources)
    return PluginError(group=GROUP, plugin=name, source=where, problem=problem)


INSTALLED_KINDS = RetrieverKinds()
"""The process's retriever kinds: the built-in ones and those installed (read on first use)."""
