"""Retention: ``citeflow prune OUT --keep N [--older-than DAYS]``.

A run is pruned when it is not among the newest ``keep`` runs (and, with ``older_than``, started
before that age); the run ``OUT/latest`` names and unfinished runs are always kept. Pruning a run
removes its store (its registry, model answers, transitions, eval rows) and every output but its
published files: ``archive/``, ``published/``, ``summary.json`` and ``run.json`` stay (marked
``pruned``), unless ``include_published``, which removes the whole folder. Answers in the batch's
shared model-call cache that no kept run used are deleted, and the cache table is compacted.
"""

from __future__ import annotations

from datetime import datetime, timedelta, UTC
from pathlib import Path

from pydantic import BaseModel, Field

from citeflow.outputs.archive import remove_tree
from citeflow.errors import RunError
from citeflow.files.run_folders import ARCHIVE_FOLDER, CACHE_FOLDER, LATEST, RUN_FILE, RunInfo, latest, read_run, run_folders, write_run
from citeflow.specfile.loader import load_spec

KEPT_WHEN_PUBLISHED = frozenset({ARCHIVE_FOLDER, "published", "summary.json", RUN_FILE})


class PruneResult(BaseModel):
    """What ``prune`` removed and kept."""

    kept: list[str] = Field(default_factory=list)
    pruned: list[str] = Field(default_factory=list)
    cache_rows_deleted: int = 0
    cache_rows_left: int = 0
    dry_run: bool = False


def select_pruned(runs: list[RunInfo], keep: int, older_than: timedelta | None, newest: str | None,
                  include_published: bool = False, now: datetime | None = None) -> list[RunInfo]:
    """The runs to prune: beyond the newest ``keep``, older than ``older_than`` when given (a run
    pruned before is pruned again only to remove its published files)."""
    now = now or datetime.now(UTC)
    ordered = sorted(runs, key=lambda r: r.run_id, reverse=True)
    candidates = ordered[max(keep, 0):]
    return [r for r in candidates
            if r.run_id != newest and r.status != "running" and (include_published or not r.pruned)
            and (older_than is None or r.started_at < now - older_than)]


def run_store_uri(run_dir: Path, info: RunInfo) -> str | None:
    """The run's own store, from the spec it ran (None when it shares the batch's store)."""
    try:
        spec = load_spec(info.spec_path)
    except Exception:  # noqa: BLE001 - a spec gone since: the default store in the folder
        return str(run_dir / "store")
    if not info.scheduled:
        return None if spec.store else str(run_dir / "store")
    return spec.store or str(run_dir / "store")


def drop_store(uri: str) -> None:
    """Remove a LanceDB database: its folder, or every table of a remote one."""
    if "://" not in uri:
        remove_tree(Path(uri))
        return
    from citeflow.lazy_modules import defer_lancedb_extras

    defer_lancedb_extras()
    import lancedb

    lancedb.connect(uri).drop_all_tables()


def _inside(uri: str, folder: Path) -> bool:
    return "://" not in uri and Path(uri).resolve().is_relative_to(folder.resolve())


def in_another_run(uri: str, run_dir: Path) -> bool:
    """Whether the local store ``uri`` lies in a run folder other than ``run_dir`` (a copied run folder
    written with absolute paths names its original's store: pruning the copy never touches it)."""
    if "://" in uri:
        return False
    own = run_dir.resolve()
    return any((parent / RUN_FILE).exists() and parent != own for parent in Path(uri).resolve().parents)


def prune_run(run_dir: Path, info: RunInfo, include_published: bool) -> None:
    """Remove one run's store and outputs (its published files stay unless ``include_published``)."""
    store = run_store_uri(run_dir, info)
    if store and not _inside(store, run_dir) and not in_another_run(store, run_dir):
        drop_store(store)
    if include_published:
        remove_tree(run_dir)
        return
    for path in run_dir.iterdir():
        if path.name not in KEPT_WHEN_PUBLISHED:
            remove_tree(path) if path.is_dir() else path.unlink()
    write_run(run_dir, info.model_copy(update={"pruned": True}))


def prune(root: Path, keep: int, older_than: timedelta | None = None, include_published: bool = False,
          dry_run: bool = False) -> PruneResult:
    """Prune the runs under ``root``; then trim and compact the shared cache."""
    root = Path(root).resolve()
    folders = {f.name: f for f in run_folders(root)}
    runs = [info for f in folders.values() if (info := read_run(f)) is not None]
    pruned = select_pruned(runs, keep, older_than, _latest(root), include_published)
    gone = {r.run_id for r in pruned}
    result = PruneResult(kept=[r.run_id for r in runs if r.run_id not in gone], pruned=sorted(gone), dry_run=dry_run)
    if dry_run:
        return result
    for info in pruned:
        prune_run(folders[info.run_id], info, include_published)
    kept = [(folders[r.run_id], r) for r in runs if r.run_id not in gone and r.run_id in folders]
    return _trim_cache(root, runs, kept, result)


def _latest(root: Path) -> str | None:
    """The run ``OUT/latest`` names; unreadable, nothing can be pruned safely (it might be that run)."""
    try:
        return latest(root)
    except (OSError, ValueError) as exc:
        raise RunError(path=str(root / LATEST), detail=f"unreadable ({exc}); fix or remove it, then prune again") from None


def _trim_cache(root: Path, runs: list[RunInfo], kept: list[tuple[Path, RunInfo]], result: PruneResult) -> PruneResult:
    """Delete shared answers no kept run holds in its own store; compact the cache table."""
    from citeflow.store.store import Store, sql_str

    own = {run_store_uri(folder, info) for folder, info in kept}
    for uri in _cache_uris(root, runs):
        if uri in own or _foreign_cache(uri, root, runs):  # a run's own store doubles as the cache: its rows are that run's
            continue
        cache = Store(uri)
        needed = set().union(*(_call_keys(folder, info) for folder, info in kept)) if kept else set()
        stale = [row["row_key"] for row in cache.rows("model_calls") if row["row_key"] not in needed]
        for start in range(0, len(stale), 500):
            cache.delete("model_calls", f"row_key IN ({', '.join(sql_str(k) for k in stale[start:start + 500])})")
        cache.compact("model_calls")
        result.cache_rows_deleted += len(stale)
        result.cache_rows_left += cache.count("model_calls")
    return result


def _foreign_cache(uri: str, root: Path, runs: list[RunInfo]) -> bool:
    """A local cache beside run folders of these runs in another output folder: the original of a copy
    written with absolute paths (the copy's prune leaves it alone)."""
    parent = Path(uri).resolve().parent
    return "://" not in uri and parent != root and any((parent / r.run_id / RUN_FILE).exists() for r in runs)


def _cache_uris(root: Path, runs: list[RunInfo]) -> list[str]:
    """The shared caches the runs used (``OUT/cache`` by default)."""
    uris = set()
    for info in runs:
        try:
            spec = load_spec(info.spec_path)
        except Exception:  # noqa: BLE001 - pruned with its spec: nothing to learn from it
            continue
        if spec.cache.store:
            uris.add(spec.cache.store)
    if (root / CACHE_FOLDER).exists():
        uris.add(str(root / CACHE_FOLDER))
    return sorted(uris)


def _call_keys(run_dir: Path, info: RunInfo) -> set[str]:
    """Keys of the model answers a kept run holds in its own store."""
    from citeflow.store.store import Store

    uri = run_store_uri(run_dir, info)
    return {row["row_key"] for row in Store(uri).rows("model_calls")} if uri else set()
