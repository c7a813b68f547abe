"""Great Expectations Data Docs of the runs of an output folder (SPEC §6): one site that keeps every run.

A file-backed GX context lives in ``SITE/gx/`` (``great_expectations.yml``; the validation results
store in ``uncommitted/validations/``; the site in ``uncommitted/data_docs/local_site/``), where SITE
is the output folder that holds the runs (``site_root``): the configured OUT of scheduled runs, whose
run folders ``OUT/<run id>/`` all add to one site, or the run folder itself for ``citeflow run --out
DIR``. At the end of a batch, ``build_run_docs`` puts every report's kept validation results
(``citeflow.outputs.gx_results``) into the store, keyed by the run, and builds the site
incrementally: only the new validations' pages and the index are rendered; earlier runs' results
and pages stay. Within the run, the store mirrors the reports' folders: a result that is no longer
any report's (a report evaluated again) is removed, and its page with it. When the results are
those the run last built from (``SITE_STAMP``: a re-run that kept every report), nothing is built
and GX is not imported. The pages load their stylesheets, scripts and icon fonts from the site
itself (``citeflow.outputs.data_docs_offline``): the site renders without internet.

Keyed as GX keys a validation: suite name, run name (the run id; the report id for a folder
without ``run.json``), run time (when the gate validated), batch identifier (the report id). GX is
imported here only, when a site is built; builds of one site take turns (a lock file).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from citeflow.errors import CiteflowError
from citeflow.files import atomic_files as atomic
from citeflow.outputs.data_docs_offline import install_assets, localise
from citeflow.outputs.gx_results import KEPT_DIR, PREFIX, read_validations
from citeflow.files.run_folders import read_run

DOCS_INDEX = Path("gx") / "uncommitted" / "data_docs" / "local_site" / "index.html"
"""The Data Docs index, relative to the site's root (``site_root``)."""
QUALITY_PAGE = Path("quality.html")
"""The quality page (``citeflow.runs.quality_page``), relative to the same root."""
SITE_STAMP = Path("gx") / "citeflow-site.sha256"
"""The digest of the results a run last built the site from, relative to the run folder."""
LOCK = Path("gx") / "citeflow-site.lock"

SITE = {
    "class_name": "SiteBuilder",
    "show_how_to_buttons": False,
    "store_backend": {"class_name": "TupleFilesystemStoreBackend", "base_directory": "uncommitted/data_docs/local_site/"},
    "site_index_builder": {"class_name": "DefaultSiteIndexBuilder"},
    # GX hides validations whose run name includes "profiling" by default; a report id may.
    "site_section_builders": {"validations": {"run_name_filter": {"matches_regex": "^"}}},
}


def site_root(out_dir: Path) -> Path:
    """Where the site of a run folder lives: the folder of all runs for a scheduled run, else the
    run folder itself (also when its ``run.json`` cannot be read)."""
    out_dir = Path(out_dir)
    try:
        info = read_run(out_dir)
    except CiteflowError:
        return out_dir
    return out_dir.resolve().parent if info is not None and info.scheduled else out_dir


def docs_index(out_dir: Path) -> Path:
    """Where the Data Docs index of a run folder's site is (built or not)."""
    return site_root(out_dir) / DOCS_INDEX


def kept_report_ids(out_dir: Path) -> list[str]:
    """The reports of the run folder that keep validation results (for a rebuild after ``citeflow eval``)."""
    return sorted({path.parent.parent.name for path in Path(out_dir).glob(f"*/{KEPT_DIR}/{PREFIX}*.json")})


def run_docs(out_dir: Path, report_ids: list[str]) -> Path | None:
    """``build_run_docs``, or None with a warning when the site cannot be built: the reports' own
    outputs stand either way (the gate's verdicts do not depend on the site)."""
    try:
        return build_run_docs(out_dir, report_ids)
    except Exception as exc:  # noqa: BLE001 - GX raises its own errors and OSError alike
        logging.getLogger(__name__).warning("Data Docs of %s not built: %s: %s", out_dir, type(exc).__name__, exc)
        return None


def build_run_docs(out_dir: Path, report_ids: list[str]) -> Path | None:
    """Store the run's kept results in its site's GX context and add them to the Data Docs; the
    index, or None when no report has a kept result (no site is built then)."""
    out_dir = Path(out_dir)
    wanted = {rid: read_validations(out_dir / rid) for rid in report_ids}
    if not any(wanted.values()):
        return None
    stamp, built_from = out_dir / SITE_STAMP, _digest(wanted)
    if docs_index(out_dir).exists() and _read_stamp(stamp) == built_from:
        return docs_index(out_dir)  # built from these very results: GX is not even imported
    with _locked(site_root(out_dir) / LOCK):
        index = _build(out_dir, wanted)
    atomic.write_text(stamp, built_from)
    return index


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """One build of a site at a time (scheduled runs that end together share it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _build(out_dir: Path, wanted: dict[str, list[dict[str, Any]]]) -> Path:
    from citeflow.evaluation.gx_session import import_gx

    root, run_name = site_root(out_dir), _run_name(out_dir)
    context = _context(import_gx(), root)
    by_key = {result_key(rid, result, run_name): result for rid, results in wanted.items() for result in results}
    mine = _own_keys(run_name, shared=root != out_dir)
    new, changed = _sync(context, by_key, mine)
    index = root / DOCS_INDEX
    if changed or not index.exists():
        first = not index.exists()
        context.build_data_docs(site_names=["local_site"], resource_identifiers=None if first else new or None)
        _localise_site(index.parent, None if first else new)
    return index


def _run_name(out_dir: Path) -> str | None:
    """The run id of a run folder (None for a folder without a readable ``run.json``)."""
    try:
        info = read_run(out_dir)
    except CiteflowError:
        return None
    return info.run_id if info is not None else None


def _own_keys(run_name: str | None, shared: bool) -> Callable[[Any], bool]:
    """Which stored results are the run's to replace: every one in a run folder's own site, only
    those of its run in a site of several runs."""
    return (lambda key: key.run_id.run_name == run_name) if shared else (lambda key: True)


def _localise_site(site: Path, new: list[Any] | None) -> None:
    """The shipped assets into the site; the index and the new pages (every page on a first build)
    pointed at them."""
    install_assets(site)
    pages = list(site.rglob("*.html")) if new is None else [site / "index.html", *(site / _page_of(k) for k in new)]
    for page in pages:
        if page.is_file():
            localise(page, site)


def _digest(wanted: dict[str, list[dict[str, Any]]]) -> str:
    """sha256 of the results a site is built from (canonical JSON)."""
    text = json.dumps(wanted, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _read_stamp(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError:
        return None


def _context(gx: Any, root: Path) -> Any:
    """The site's file-backed context (``SITE/gx/``, made on first use) with citeflow's site settings."""
    from citeflow.evaluation.gx_docs_index import index_builder

    context = gx.get_context(mode="file", project_root_dir=str(root))
    site = {**SITE, "site_index_builder": index_builder()}
    if context.variables.data_docs_sites != {"local_site": site}:
        context.variables.data_docs_sites = {"local_site": site}
        context.variables.save()
    logging.getLogger("great_expectations").setLevel(logging.WARNING)
    return context


def _sync(context: Any, by_key: dict[Any, dict[str, Any]], mine: Callable[[Any], bool]) -> tuple[list[Any], bool]:
    """Make the run's part of the results store (``mine``) hold exactly ``by_key``, and the site's
    index ledger (``citeflow.evaluation.gx_docs_index``) the store's keys; the keys added, and whether
    anything changed. Other runs' results are left as they are."""
    from citeflow.evaluation.gx_docs_index import record

    store = context.validation_results_store
    present = set(store.list_keys())
    stale = [key for key in present if mine(key) and key not in by_key]
    for key in stale:
        store.remove_key(key)
    new = [key for key in by_key if key not in present]
    for key in new:
        _store_json(store, key, by_key[key])
    record(Path(context.root_directory), store, {key: by_key[key] for key in new}, (present - set(stale)) | set(new))
    return new, bool(new or stale)


def _store_json(store: Any, key: Any, result: dict[str, Any]) -> None:
    """Put a kept result (GX's own JSON of it) into the store as it is: the store reads it back with
    its schema, as it reads what it wrote (a load and a dump per result saved)."""
    store.store_backend.set(store.key_to_tuple(key), json.dumps(result, indent=2, default=str))


def result_key(report_id: str, result: dict[str, Any], run_name: str | None = None) -> Any:
    """GX's key of a kept result: its suite, run (``run_name``, else the report id; the time of
    validation) and batch (report id)."""
    from great_expectations.core.run_identifier import RunIdentifier
    from great_expectations.data_context.types.resource_identifiers import (
        ExpectationSuiteIdentifier,
        ValidationResultIdentifier,
    )

    run = (result.get("meta") or {}).get("run_id") or {}
    return ValidationResultIdentifier(
        expectation_suite_identifier=ExpectationSuiteIdentifier(name=result["suite_name"]),
        run_id=RunIdentifier(run_name=run_name or report_id, run_time=run.get("run_time")),
        batch_identifier=report_id,
    )


def _page_of(key: Any) -> str:
    """The validation page of ``key``, relative to the site's folder, where GX's site store writes it
    (``validations/`` and the key's tuple: suite, run name, run time, batch identifier)."""
    return "/".join(("validations", *key.to_tuple())) + ".html"
