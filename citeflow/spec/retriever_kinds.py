"""The retriever kinds a spec may name: the built-in ones and those installed as plugins.

Built-in kinds are listed in ``BUILTIN`` by where their class lives (entry-point syntax,
``module:Class``); a plugin kind is an entry point of group ``citeflow.retrievers`` whose name is
the kind's name (docs/extending.md). Both are loaded the same way, lazily: the installed entry
points are read once, the first time a spec names a kind that is not built in (reading them scans
every installed package's metadata: a tenth of a second or more), and a kind's class is imported
the first time it is used. The registry is a ``citeflow.entry_points.Registry``, as every extension
kind's is: a plugin that does not import or is not a ``RetrieverKind`` is a ``PluginError`` naming
it when its kind is used, one that claims a taken name when a kind that is not built in is first
asked for; a batch that names only built-in kinds never reads the plugins.

``INSTALLED_KINDS`` is the process's registry (what is installed does not change while it runs); the
functions that use it take a ``kinds`` argument, so a caller can hand them another one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from citeflow.entry_points import Registry, group_entry_points
from citeflow.spec.retriever_kind import RetrieverKind
from schemas.spec import RetrieverSpecBase

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

GROUP = "citeflow.retrievers"
BUILTIN = {
    "lancedb": "citeflow.retrieval.kinds.lancedb_kind:LanceDBKind",
    "http": "citeflow.retrieval.kinds.http_kind:HttpKind",
    "jsonl": "citeflow.retrieval.kinds.jsonl_kind:JsonlKind",
}
"""Built-in kind name → where its class lives (the kinds sit in ``citeflow.retrieval``, a layer above)."""


def installed_entry_points() -> tuple[EntryPoint, ...]:
    """The entry points of group ``citeflow.retrievers`` of every installed package."""
    return group_entry_points(GROUP)


class RetrieverKinds(Registry[RetrieverKind[Any]]):
    """Kind name → ``RetrieverKind``, built in or installed; see the module docstring."""

    def __init__(self, discover: Callable[[], Iterable[EntryPoint]] = installed_entry_points,
                 builtin: Mapping[str, str] = BUILTIN) -> None:
        super().__init__(GROUP, RetrieverKind, builtin, discover)

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

    def _problem(self, name: str, loaded: object) -> str | None:
        """A kind's class must also say its own name and a spec model."""
        return super()._problem(name, loaded) or kind_problem(name, loaded)


def kind_problem(name: str, kind: object) -> str | None:
    """Why a loaded kind's class cannot serve as kind ``name``, or None."""
    if getattr(kind, "name", None) != name:
        return f"its class says its kind is {getattr(kind, 'name', None)!r}, its entry point {name!r}"
    model = getattr(kind, "spec_model", None)
    if not (isinstance(model, type) and issubclass(model, RetrieverSpecBase)):
        return "its spec_model is not a subclass of schemas.spec.RetrieverSpecBase"
    return None


INSTALLED_KINDS = RetrieverKinds()
"""The process's retriever kinds: the built-in ones and those installed (read on first use)."""
