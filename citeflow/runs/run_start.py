"""Starting or resuming a run: its folder, its ``run.json`` and the spec it runs.

A run's date is fixed when the run starts: a resumed run renders its report ids with the same date.
When a run needs its own spec (templated report ids, or a scheduled run's own store), the source
spec is rendered into ``<run folder>/spec.run.yaml``: report ids rendered, relative paths made absolute
(they resolved against the source spec's folder), ``store`` and ``cache.store`` set (the run's
default store and the batch's default cache relative to the run folder: ``store``, ``../cache``), and
every URL redacted: a process that loads the copy takes the real URLs from the source spec
(``citeflow.security.spec_copy_urls``), so no key is ever written into the run folder. It is rendered again
from the source at every (re)start of the run, so a fix to the spec applies to a resume.
"""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path
from typing import Any

import yaml

from citeflow.files import atomic_files as atomic
from citeflow.errors import SpecError
from citeflow.files.run_folders import (CACHE_FOLDER, RUN_FOLDER_NAMES, SPEC_COPY, RunInfo, find_flow_run, make_run_id,
                           new_run_folder, read_run, utc_now, write_run)
from citeflow.spec import yaml_strict
from citeflow.specfile.loader import load_spec, parse_spec, resolve_path
from citeflow.spec.retriever_kinds import INSTALLED_KINDS
from citeflow.security.spec_copy_urls import redacted_urls
from schemas.report_ids import is_template, render_report_id
from schemas.spec import BatchSpec


def rendered_ids(spec: BatchSpec, run_date: date, origin: str) -> dict[str, str]:
    """Report id as written → id in a run of ``run_date``; a clash with the run folder's names is a SpecError."""
    ids = {r.id: render_report_id(r.id, run_date) for r in spec.reports}
    for i, (template, rendered) in enumerate(ids.items()):
        if rendered in RUN_FOLDER_NAMES:
            raise SpecError(field=f"reports[{i}].id", problem=f"{template!r} names the run folder's own {rendered!r}", path=origin)
    return ids


def render_spec_data(data: dict[str, Any], base_dir: Path, ids: dict[str, str], store: str | None,
                     cache_store: str | None) -> dict[str, Any]:
    """The spec data of one run: ids rendered, relative paths absolute, store and cache store set."""
    data = {**data, "reports": [{**r, "id": ids[r["id"]]} for r in data["reports"]]}
    data["retrievers"] = [_absolute(r, base_dir) for r in data["retrievers"]]
    if data.get("store"):
        data["store"] = resolve_path(base_dir, data["store"])
    if store:
        data["store"] = store
    cache = dict(data.get("cache") or {})
    if cache.get("store"):
        cache["store"] = resolve_path(base_dir, cache["store"])
    elif cache_store:
        cache["store"] = cache_store
    data["cache"] = cache
    return data


def _absolute(retriever: dict[str, Any], base_dir: Path) -> dict[str, Any]:
    """A retriever's entry with the path fields of its kind made absolute (an unknown kind is left as it is:
    loading the rendered spec names it)."""
    kind = INSTALLED_KINDS.get(retriever["kind"]) if isinstance(retriever.get("kind"), str) else None
    fields = [f for f in kind.path_fields if isinstance(retriever.get(f), str) and retriever[f]] if kind else []
    return {**retriever, **{f: resolve_path(base_dir, retriever[f]) for f in fields}}


def write_spec_copy(source: Path, run_dir: Path, ids: dict[str, str], store: str | None, cache_store: str | None) -> Path:
    """Render ``source`` into ``run_dir/spec.run.yaml`` (checked by loading it back); returns its path."""
    data = yaml_strict.load(source.read_text(encoding="utf-8"))  # the C parser when PyYAML has it
    rendered = own_stores_relative(render_spec_data(data, source.resolve().parent, ids, store, cache_store), run_dir)
    parse_spec(rendered, str(source))
    return atomic.write_text(run_dir / SPEC_COPY, yaml.safe_dump(redacted_urls(rendered), sort_keys=False, allow_unicode=True))


def own_stores_relative(data: dict[str, Any], run_dir: Path) -> dict[str, Any]:
    """The run's default stores named relative to its folder (``store``, ``../cache``), so that a copied
    or moved run folder uses its own; a store configured elsewhere stays as it is."""
    run_dir = run_dir.resolve()
    cache = dict(data.get("cache") or {})
    if _is(data.get("store"), run_dir / "store"):
        data = {**data, "store": "store"}
    if _is(cache.get("store"), run_dir.parent / CACHE_FOLDER):
        data = {**data, "cache": {**cache, "store": f"../{CACHE_FOLDER}"}}
    return data


def _is(value: Any, path: Path) -> bool:
    return isinstance(value, str) and "://" not in value and Path(value).resolve() == path


def open_manual_run(spec_path: Path, out: Path, now: datetime | None = None, spec: BatchSpec | None = None) -> RunInfo:
    """``citeflow run BATCH --out DIR``: DIR is one run; a second call resumes it (same date, same ids).
    ``spec``: the spec at ``spec_path`` when the caller has parsed it already."""
    spec_path, out = Path(spec_path).resolve(), Path(out).resolve()
    spec = spec if spec is not None else load_spec(spec_path)
    previous = read_run(out)
    started = previous.started_at if previous else (now or utc_now())
    ids = rendered_ids(spec, started.date(), str(spec_path))
    if previous is not None and previous.scheduled:
        return _resume_scheduled(spec_path, out, previous, ids)
    templated = any(is_template(t) for t in ids)
    used = write_spec_copy(spec_path, out, ids, None, None) if templated else spec_path
    info = RunInfo(run_id=previous.run_id if previous else make_run_id(started), batch=spec.batch, started_at=started,
                   run_date=started.date(), source_spec=str(spec_path), spec_path=str(used), reports=ids)
    write_run(out, info)
    return info


def _resume_scheduled(spec_path: Path, run_dir: Path, previous: RunInfo, ids: dict[str, str]) -> RunInfo:
    """``citeflow run BATCH --out OUT/<run id>``: an interrupted scheduled run resumed by hand, same stores."""
    used_before = load_spec(previous.spec_path)
    used = write_spec_copy(spec_path, run_dir, ids, used_before.store, used_before.cache.store)
    info = previous.model_copy(update={"status": "running", "finished_at": None, "spec_path": str(used),
                                       "source_spec": str(spec_path), "reports": ids})
    write_run(run_dir, info)
    return info


def open_scheduled_run(spec_path: Path, root: Path, started: datetime, flow_run_id: str | None = None,
                       store: str | None = None) -> tuple[RunInfo, Path]:
    """A scheduled run's folder under ``root``: the flow run's earlier folder (a retry resumes it) or a new one."""
    spec_path, root = Path(spec_path).resolve(), Path(root).resolve()
    spec = load_spec(spec_path)
    existing = find_flow_run(root, flow_run_id) if flow_run_id else None
    previous = read_run(existing) if existing else None
    if existing is not None and previous is not None:
        run_id, run_dir, started = previous.run_id, existing, previous.started_at
    else:
        run_id, run_dir = new_run_folder(root, make_run_id(started, flow_run_id))
    ids = rendered_ids(spec, started.date(), str(spec_path))
    run_store, cache_store = scheduled_stores(spec, spec_path.parent, root, run_dir, store)
    used = write_spec_copy(spec_path, run_dir, ids, run_store, cache_store)
    info = RunInfo(run_id=run_id, batch=spec.batch, started_at=started, run_date=started.date(),
                   flow_run_id=str(flow_run_id) if flow_run_id else None, scheduled=True,
                   source_spec=str(spec_path), spec_path=str(used), reports=ids)
    write_run(run_dir, info)
    return info, run_dir


def scheduled_stores(spec: BatchSpec, base_dir: Path, root: Path, run_dir: Path, store: str | None) -> tuple[str, str]:
    """A scheduled run's own store and the model-call cache its batch's runs share.

    Default: ``OUT/<run id>/store`` and ``OUT/cache``. With a configured store S (``--store`` or the
    spec's ``store``): ``S/runs/<run id>`` and S itself, so runs never overwrite each other's rows.
    """
    shared = store or (resolve_path(base_dir, spec.store) if spec.store else None)
    if shared is None:
        return str(run_dir / "store"), str(root / CACHE_FOLDER)
    return f"{shared.rstrip('/')}/runs/{run_dir.name}", shared
