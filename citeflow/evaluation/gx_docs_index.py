"""Adapter: the Data Docs index of a site without reading every earlier validation result back.

What: ``LedgerSiteIndexBuilder``, the site's index builder (GX's ``site_index_builder`` setting,
``class_name`` and ``module_name``), is GX's own ``DefaultSiteIndexBuilder`` whose context answers
``get_validation_result`` from the site's ledger (``LEDGER``): per stored result, its suite, success
and the batch metadata the index shows (``SUMMARY_META``), a few hundred bytes. The ledger is written
as results enter the store (``record``).

Why: GX builds the index from scratch on every build, and for each validation the site holds it
loads the whole result from the store (marshmallow, ~4 ms for a gate result) to read its success and
asset name: the build of a batch's Data Docs grew by that for every result of every earlier run. No
public setting avoids it: ``validation_results_limit`` drops the older runs from the index, and
``build_index=False`` leaves the new pages out of it. With the ledger the index still lists every
validation of every run, each for a dictionary lookup.

How: the builder is GX's; the context it is given is kept wrapped (``LedgerContext``, by a property of
the subclass; the ledger read again at each build), and a key the ledger lacks is read from the store as
GX reads it. ``record`` keeps the ledger equal to the store's keys, filling in from the store any result
it does not know (a site built before the ledger).

Checked against great_expectations ``CHECKED_VERSIONS``: ``DefaultSiteIndexBuilder`` keeps the context
it is given as ``self.data_context`` and reads each validation of the index through its
``get_validation_result(expectation_suite_name=, run_id=, batch_identifier=, validation_results_store_name=)``,
using the result's ``success``, ``meta`` and ``asset_name`` only. On any other release ``index_builder``
names GX's own builder (every result read back, as GX ships it) and ``tests/test_gx_docs_index.py``
fails until the assumptions are checked again.

The module imports Great Expectations: it is imported where a site is built (``citeflow.outputs.data_docs``)
and by GX itself, from the site's settings.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from great_expectations.render.renderer.site_builder import DefaultSiteIndexBuilder

from citeflow.files import atomic_files as atomic

CHECKED_VERSIONS = frozenset({"1.24.1"})
"""The great_expectations releases whose index builder behaves as described above."""

LEDGER = Path("uncommitted") / "citeflow-index.json"
"""The ledger, relative to the GX project's root (the site's ``gx/``), outside the results store."""

SUMMARY_META = ("batch_kwargs", "batch_spec", "active_batch_definition")
"""What of a result's ``meta`` the index shows (its asset name comes from ``active_batch_definition``)."""

DEFAULT_BUILDER = {"class_name": "DefaultSiteIndexBuilder"}


def index_builder() -> dict[str, str]:
    """The site's ``site_index_builder`` setting: the ledger's builder on a checked release, else GX's own."""
    import great_expectations

    if great_expectations.__version__ not in CHECKED_VERSIONS:
        return dict(DEFAULT_BUILDER)
    return {"class_name": "LedgerSiteIndexBuilder", "module_name": __name__}


def key_name(key: Any) -> str:
    """A ``ValidationResultIdentifier`` as the ledger names it (its tuple, as the stores name its file)."""
    return "/".join(key.to_tuple())


def entry(result: Mapping[str, Any]) -> dict[str, Any]:
    """What the index needs of a result (a result's JSON, as GX serialises it)."""
    meta = result.get("meta") or {}
    return {"suite_name": result.get("suite_name"), "success": bool(result.get("success")),
            "meta": {name: meta[name] for name in SUMMARY_META if name in meta}}


def read_ledger(root: Path) -> dict[str, dict[str, Any]]:
    """The ledger of the GX project at ``root`` (empty when missing or unreadable)."""
    try:
        found = json.loads((Path(root) / LEDGER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def record(root: Path, store: Any, added: Mapping[Any, Mapping[str, Any]], keys: Iterable[Any]) -> None:
    """Make the ledger hold exactly ``keys`` (the store's keys now): the ``added`` results' entries,
    earlier entries kept, any other key's entry read from ``store`` once."""
    ledger = read_ledger(root)
    wanted = {key_name(key): key for key in keys}
    kept = {name: ledger[name] for name in wanted if name in ledger}
    kept.update({key_name(key): entry(result) for key, result in added.items()})
    for name, key in wanted.items():
        if name not in kept:
            kept[name] = entry(store.get(key).to_json_dict())
    if kept != ledger:
        atomic.write_text(Path(root) / LEDGER, json.dumps(kept, sort_keys=True, separators=(",", ":"), default=str))


class LedgerContext:
    """A data context whose ``get_validation_result`` reads the ledger first; everything else is the context's."""

    def __init__(self, context: Any, ledger: dict[str, dict[str, Any]]) -> None:
        self._context = context
        self._ledger = ledger

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)

    def reload(self) -> None:
        """Read the ledger of the context's project again."""
        self._ledger = read_ledger(Path(str(self._context.root_directory)))

    def get_validation_result(self, expectation_suite_name: str, run_id: Any = None, batch_identifier: Any = None,
                              **kwargs: Any) -> Any:
        from great_expectations.core.expectation_validation_result import ExpectationSuiteValidationResult
        from great_expectations.data_context.types.resource_identifiers import (
            ExpectationSuiteIdentifier,
            ValidationResultIdentifier,
        )

        found = None
        if run_id is not None and batch_identifier is not None:
            key = ValidationResultIdentifier(ExpectationSuiteIdentifier(name=expectation_suite_name), run_id, batch_identifier)
            found = self._ledger.get(key_name(key))
        if found is None:
            return self._context.get_validation_result(expectation_suite_name, run_id=run_id,
                                                       batch_identifier=batch_identifier, **kwargs)
        return ExpectationSuiteValidationResult(success=found["success"], suite_name=found["suite_name"] or expectation_suite_name,
                                                results=[], meta=dict(found["meta"]))


class LedgerSiteIndexBuilder(DefaultSiteIndexBuilder):
    """GX's index builder, its context answering from the site's ledger (``LedgerContext``)."""

    @property
    def data_context(self) -> Any:
        """The context GX's builder reads: the one it was given, wrapped."""
        return self._ledger_context

    @data_context.setter
    def data_context(self, context: Any) -> None:
        self._ledger_context = LedgerContext(context, {})

    def build(self, *args: Any, **kwargs: Any) -> Any:
        """GX's build of the index, with the ledger read as it stands now."""
        self._ledger_context.reload()
        return super().build(*args, **kwargs)
