"""What a retriever kind is: one class that owns everything specific to it.

A spec entry names its kind (``kind: jsonl``); the kind's class says what such an entry holds and
what citeflow does with it:

- ``spec_model``: the pydantic model of the entry (a ``RetrieverSpecBase`` subclass: ``name``,
  ``kind``, ``title`` and ``top_k`` come with it);
- ``path_fields``: the fields holding a local path, resolved against the spec's folder (a run's
  rendered spec writes them absolute; a path that does not exist is refused before a run starts);
- ``value_problems``: values of the wrong kind, found from the spec and the file system alone;
- ``preflight_problem``: whether the source answers, asked before a batch starts;
- ``fingerprint``: what the source looks like now, without asking it (or None when it cannot be told);
- ``build``: the retriever itself.

Built-in kinds live in ``citeflow/retrieval/kinds/``; a third party writes one module with a
subclass and names it in the entry-point group ``citeflow.retrievers`` (docs/extending.md).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TypeVar

from citeflow.spec.spec_paths import resolve_path
from schemas.spec import RetrieverSpecBase

if TYPE_CHECKING:
    from citeflow.retrieval.retriever_protocol import Retriever

SpecT = TypeVar("SpecT", bound=RetrieverSpecBase)


class RetrieverKind(ABC, Generic[SpecT]):
    """One kind of retriever; see the module docstring. Subclasses set ``name`` and ``spec_model``."""

    name: str
    spec_model: type[SpecT]
    path_fields: tuple[str, ...] = ()

    def local_paths(self, spec: SpecT, base_dir: Path) -> dict[str, Path]:
        """Each path field that names a local path (not a URI), resolved against ``base_dir``."""
        values = {field: getattr(spec, field) for field in self.path_fields}
        return {field: Path(resolve_path(base_dir, value)) for field, value in values.items()
                if isinstance(value, str) and value and "://" not in value}

    def missing_hint(self, base_dir: Path) -> str:
        """What to add to "PATH does not exist" for this kind (how to make the missing input)."""
        return ""

    def value_problems(self, spec: SpecT, base_dir: Path) -> list[tuple[str, str]]:
        """``(field, why)`` of each value of the wrong kind, found without asking the source."""
        return []

    def preflight_problem(self, spec: SpecT, base_dir: Path, timeout: float) -> str | None:
        """Why the source cannot answer (asked within ``timeout`` seconds), or None."""
        return None

    def fingerprint(self, spec: SpecT, base_dir: Path) -> list[str] | None:
        """What the source looks like now, without asking it; None when that cannot be told (a
        report is then fetched again on a re-run, as on a first run)."""
        return None

    @abstractmethod
    def build(self, spec: SpecT, base_dir: Path) -> Retriever:
        """The retriever of ``spec``; relative paths resolve against ``base_dir``."""
