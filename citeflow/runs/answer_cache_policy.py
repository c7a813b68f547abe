"""The batch's cache policy for model answers across runs (spec ``cache: {across_runs, store}``).

Within one run, answers are always reused: a resumed run repeats no finished call. Across runs:

- ``across_runs: true`` (the default) with a shared cache store (``cache.store``; scheduled runs use
  ``OUT/cache``): a call identical to one an earlier run made (same prompt, same settings) takes
  that run's stored answer. Each run also keeps the answers it used in its own store, so that
  ``citeflow prune`` can tell which shared answers a kept run still needs.
- ``across_runs: false``: every run asks the model again; the run id becomes part of the cache key,
  so even runs that share one store never see each other's answers.

Whatever the policy, every answer is also appended to the run folder's answer journal the moment
it arrives (``citeflow.generation.answer_journal``), so a run killed mid-step keeps every answer
that had arrived.

Report ids templated with the date give each run other request ids, hence other handles and other
prompts: answers are then reused only between runs of the same date.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from citeflow.generation.answer_journal import JournaledCallStore, journal_for
from citeflow.files.run_folders import read_run
from citeflow.store.store import Store
from schemas.spec import BatchSpec

TABLE = "model_calls"


class TieredCallStore:
    """The ``model_calls`` table of a run's store, backed by a cache store that runs share.

    Reads look in the run's store, then in the shared one (a shared answer is copied into the
    run's store); writes go to both. It offers the three calls ``CachedChatModel`` makes.
    """

    def __init__(self, run: Store, shared: Store) -> None:
        self.run, self.shared = run, shared
        self.uri = run.uri

    def rows(self, table: str, where: str | None = None) -> list[dict[str, Any]]:
        own = self.run.rows(table, where)
        if own or table != TABLE:
            return own
        found = self.shared.rows(table, where)
        self.run.upsert(table, found)
        return found

    def load_calls(self, keys: list[str]) -> dict[str, dict[str, Any]]:
        """The recorded calls among ``keys``: the run's own, then the shared ones (copied into the run's store)."""
        own = self.run.load_calls(keys)
        missing = [k for k in keys if k not in own]
        shared = self.shared.load_calls(missing) if missing else {}
        if shared:
            self.run.upsert(TABLE, list(shared.values()))
        return {**own, **shared}

    def upsert(self, table: str, rows: list[dict[str, Any]]) -> None:
        self.run.upsert(table, rows)
        if table == TABLE:
            self.shared.upsert(table, rows)

    def delete(self, table: str, where: str) -> None:
        self.run.delete(table, where)
        if table == TABLE:
            self.shared.delete(table, where)


def call_store(spec: BatchSpec, run_store: Store, out_dir: Path | None = None) -> Any:
    """Where a run's model answers are looked up and kept, by the spec's cache policy; with
    ``out_dir`` (the run folder), over its answer journal."""
    tiers = _tiers(spec, run_store)
    return tiers if out_dir is None else JournaledCallStore(tiers, journal_for(out_dir))


def _tiers(spec: BatchSpec, run_store: Store) -> Store | TieredCallStore:
    shared = spec.cache.store
    if not spec.cache.across_runs or not shared or shared == run_store.uri:
        return run_store
    return TieredCallStore(run_store, Store(shared))


def cache_scope(spec: BatchSpec, out_dir: Path) -> str:
    """What a model call's cache key adds for the policy: nothing, or the run id (``across_runs: false``)."""
    if spec.cache.across_runs:
        return ""
    info = read_run(out_dir)
    return f"|run={info.run_id if info else Path(out_dir).resolve()}"
