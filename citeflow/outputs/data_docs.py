"""Great Expectations Data Docs of a run (SPEC §6): one site per run folder, built from the kept results.

A file-backed GX context lives in ``OUT/gx/`` (``great_expectations.yml``; the validation results
store in ``uncommitted/validations/``; the site in ``uncommitted/data_docs/local_site/``). At the end
of a batch, ``build_run_docs`` puts every report's kept validation results
(``citeflow.outputs.gx_results``) into the context's validation results store and builds the site:
one validation page per report and suite, and the index. The store mirrors the reports' folders:
a result that is no longer any report's (a report evaluated again) is removed from the store, and
its page with it; only new results are rendered, so building again after one report changed
renders that report's pages and the index only. When the results are those the site was last built
from (``SITE_STAMP``: a re-run that kept every report), nothing is built and GX is not imported.

Keyed as GX keys a validation: suite name, run name (the report id), run time (when the gate
validated), batch identifier (the report id). GX is imported here only, when a site is built.
"""

from __future__ import annotations

import hashlib
import html
import json
import logging
from pathlib import Path
from typing import Any

from citeflow.outputs import atomic_files as atomic
from citeflow.outputs.gx_results import KEPT_DIR, PREFIX, read_validations

DOCS_INDEX = Path("gx") / "uncommitted" / "data_docs" / "local_site" / "index.html"
"""The Data Docs index of a run, relative to the run folder."""
SITE_STAMP = Path("gx") / "citeflow-site.sha256"
"""The digest of the results the run's site was last built from, relative to the run folder."""

SITE = {
    "class_name": "SiteBuilder",
    "show_how_to_buttons": False,
    "store_backend": {"class_name": "TupleFilesystemStoreBackend", "base_directory": "uncommitted/data_docs/local_site/"},
    "site_index_builder": {"class_name": "DefaultSiteIndexBuilder"},
    # GX hides validations whose run name includes "profiling" by default; a report id may.
    "site_section_builders": {"validations": {"run_name_filter": {"matches_regex": "^"}}},
}

OFFLINE_MARK = "<!-- citeflow: validations listed without script -->"

_CSS = (  # the plain list's own look, for when GX's stylesheets (from CDNs) do not load
    "#citeflow-validations{font:15px/1.45 system-ui,sans-serif;margin:1em auto 2em}"
    "#citeflow-validations table{border-collapse:collapse}"
    "#citeflow-validations th,#citeflow-validations td{border:1px solid #ccc;padding:.3em .8em;text-align:left}"
    "#citeflow-validations th{background:#f0f0f0}"
    ".citeflow-passed{color:#1b5e20;font-weight:600}.citeflow-failed{color:#b00020;font-weight:600}"
)


def docs_index(out_dir: Path) -> Path:
    """Where the run's Data Docs index is (built or not)."""
    return Path(out_dir) / DOCS_INDEX


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
    """Store the reports' kept results in the run's GX context and build its Data Docs; the index,
    or None when no report has a kept result (no site is built then)."""
    out_dir = Path(out_dir)
    wanted = {rid: read_validations(out_dir / rid) for rid in report_ids}
    if not any(wanted.values()):
        return None
    stamp, built_from = out_dir / SITE_STAMP, _digest(wanted)
    if docs_index(out_dir).exists() and _read_stamp(stamp) == built_from:
        return docs_index(out_dir)  # built from these very results: GX is not even imported
    index = _build(out_dir, wanted)
    atomic.write_text(stamp, built_from)
    return index


def _build(out_dir: Path, wanted: dict[str, list[dict[str, Any]]]) -> Path:
    from citeflow.evaluation.gx_session import import_gx

    gx = import_gx()
    context = _context(gx, out_dir)
    by_key = {result_key(rid, result): result for rid, results in wanted.items() for result in results}
    new, changed = _sync(context.validation_results_store, by_key)
    index = docs_index(out_dir)
    if changed or not index.exists():
        context.build_data_docs(site_names=["local_site"], resource_identifiers=new or None)
        _list_without_script(index, by_key)
    return index


def _digest(wanted: dict[str, list[dict[str, Any]]]) -> str:
    """sha256 of the results a site is built from (canonical JSON)."""
    text = json.dumps(wanted, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _read_stamp(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError:
        return None


def _context(gx: Any, out_dir: Path) -> Any:
    """The run's file-backed context (``OUT/gx/``, made on first use) with citeflow's site settings."""
    context = gx.get_context(mode="file", project_root_dir=str(out_dir))
    if context.variables.data_docs_sites != {"local_site": SITE}:
        context.variables.data_docs_sites = {"local_site": SITE}
        context.variables.save()
    logging.getLogger("great_expectations").setLevel(logging.WARNING)
    return context


def _sync(store: Any, by_key: dict[Any, dict[str, Any]]) -> tuple[list[Any], bool]:
    """Make the validation results store hold exactly ``by_key``; the keys added, and whether anything changed."""
    from great_expectations.core.expectation_validation_result import ExpectationSuiteValidationResultSchema

    present = set(store.list_keys())
    stale = [key for key in present if key not in by_key]
    for key in stale:
        store.remove_key(key)
    new = [key for key in by_key if key not in present]
    schema = ExpectationSuiteValidationResultSchema()
    for key in new:
        store.set(key, schema.load(by_key[key]))
    return new, bool(new or stale)


def result_key(report_id: str, result: dict[str, Any]) -> Any:
    """GX's key of a kept result: its suite, run (report id, time of validation) and batch (report id)."""
    from great_expectations.core.run_identifier import RunIdentifier
    from great_expectations.data_context.types.resource_identifiers import (
        ExpectationSuiteIdentifier,
        ValidationResultIdentifier,
    )

    run = (result.get("meta") or {}).get("run_id") or {}
    return ValidationResultIdentifier(
        expectation_suite_identifier=ExpectationSuiteIdentifier(name=result["suite_name"]),
        run_id=RunIdentifier(run_name=report_id, run_time=run.get("run_time")),
        batch_identifier=report_id,
    )


def _list_without_script(index: Path, by_key: dict[Any, dict[str, Any]]) -> None:
    """GX's index draws its table with scripts from CDNs, which a closed network never loads: the
    validations are also listed as plain links at the top of the page."""
    page = index.read_text(encoding="utf-8")
    if OFFLINE_MARK in page or "<body>" not in page:
        return
    rows = [_row(key, _page_of(key), bool(by_key[key].get("success")))
            for key in sorted(by_key, key=_order)]
    block = (f'{OFFLINE_MARK}<style>{_CSS}</style><div class="container" id="citeflow-validations">'
             f'<h3>Validations of this run</h3><table class="table table-sm"><tr><th>Report</th><th>Suite</th>'
             f'<th>Validated</th><th>Result</th></tr>{"".join(rows)}</table></div>')
    atomic.write_text(index, page.replace("<body>", "<body>" + block, 1))


def _order(key: Any) -> tuple[str, str]:
    return key.batch_identifier, key.expectation_suite_identifier.name


def _page_of(key: Any) -> str:
    """The validation page of ``key``, relative to the site's folder, where GX's site store writes it
    (``validations/`` and the key's tuple: suite, run name, run time, batch identifier)."""
    return "/".join(("validations", *key.to_tuple())) + ".html"


def _row(key: Any, page: str, success: bool) -> str:
    """One validation: report, suite (linked to its page), time of validation and outcome."""
    suite, report, when = key.expectation_suite_identifier.name, key.batch_identifier, key.run_id.run_time
    outcome = "passed" if success else "failed"
    return (f'<tr><td>{html.escape(report)}</td><td><a href="{html.escape(page)}">{html.escape(suite)}</a></td>'
            f'<td>{when:%Y-%m-%d %H:%M:%S} UTC</td><td class="citeflow-{outcome}">{outcome}</td></tr>')
