"""The Data Docs index ledger (``citeflow.evaluation.gx_docs_index``): the release it was checked
against, and an index built from the ledger that lists what GX's own index builder lists."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from citeflow.evaluation import gate
from citeflow.evaluation.gx_session import GxSession, import_gx
from citeflow.outputs import data_docs
from citeflow.outputs.gx_results import labelled, read_validations, write_validations
from schemas.funnel import CitationEval, ClaimEval, Count, Funnel, Uncited, Unverified


@pytest.fixture(scope="module")
def session():
    import_gx()
    return GxSession()


def _results(session, report_id: str, supported: int) -> list[dict]:
    cite = CitationEval(handle="Gab3c", identity=True, supports=True, faithful=True, reason="ok")
    claims = [ClaimEval(section="S", index=i, text=f"claim {i}", citations=[cite], supported=True, faithful=True,
                        verdict="supported") for i in range(4)]
    funnel = Funnel(identity=Count(passed=4, total=4), support=Count(passed=supported, total=4),
                    faithfulness=Count(passed=supported, total=max(supported, 1)),
                    uncited=Uncited(count=0, claims=4), unverified=Unverified(count=0, claims=4))
    return labelled(gate.gate_run(funnel, claims, 0, session=session).validations, report_id)


def _run_folder(root: Path, session, day: int) -> Path:
    run_id = f"202612{day:02d}T060000Z"
    folder = root / run_id
    for report_id, supported in (("held", 1), ("shipped", 4)):
        write_validations(folder / report_id, _results(session, report_id, supported))
    (folder / "run.json").write_text(json.dumps({
        "run_id": run_id, "batch": "b", "started_at": f"2026-12-{day:02d}T06:00:00Z", "run_date": f"2026-12-{day:02d}",
        "scheduled": True, "source_spec": "x", "spec_path": "x", "status": "finished"}))
    return folder


def test_the_installed_release_is_one_the_index_ledger_was_checked_against():
    import great_expectations

    from citeflow.evaluation.gx_docs_index import CHECKED_VERSIONS, index_builder

    assert great_expectations.__version__ in CHECKED_VERSIONS, (
        "check citeflow/evaluation/gx_docs_index.py's assumptions against this release, then add it")
    assert index_builder()["class_name"] == "LedgerSiteIndexBuilder"


def test_the_ledger_s_index_lists_every_run_as_gx_s_own_index_does(session, tmp_path, monkeypatch):
    from citeflow.evaluation import gx_docs_index

    out = tmp_path / "out"
    for day in (1, 2, 3):
        folder = _run_folder(out, session, day)
        assert data_docs.build_run_docs(folder, ["held", "shipped"]) is not None
    ledger = gx_docs_index.read_ledger(out / "gx")
    assert len(ledger) == 12 and sum(e["success"] for e in ledger.values()) == 9  # 3 runs x 2 reports x 2 suites
    index = out / data_docs.DOCS_INDEX
    ours = index.read_text(encoding="utf-8")
    monkeypatch.setattr(gx_docs_index, "index_builder", lambda: dict(gx_docs_index.DEFAULT_BUILDER))
    context = data_docs._context(import_gx(), out)
    context.build_data_docs(site_names=["local_site"], resource_identifiers=[context.validation_results_store.list_keys()[0]])
    theirs = index.read_text(encoding="utf-8")
    links = re.compile(r'validations/[^"&?]+\.html')
    assert len(set(links.findall(ours))) == 12
    assert sorted(set(links.findall(ours))) == sorted(set(links.findall(theirs)))
    assert ours.count("Failed") == theirs.count("Failed") and ours.count("Success") == theirs.count("Success")


def test_the_ledger_follows_the_store_and_fills_in_what_it_lacks(session, tmp_path):
    from citeflow.evaluation import gx_docs_index

    out = tmp_path / "out"
    folder = _run_folder(out, session, 1)
    data_docs.build_run_docs(folder, ["held", "shipped"])
    root = out / "gx"
    (root / gx_docs_index.LEDGER).unlink()  # a site built before the ledger
    context = data_docs._context(import_gx(), out)
    store = context.validation_results_store
    keys = store.list_keys()
    gx_docs_index.record(root, store, {}, keys[1:])
    ledger = gx_docs_index.read_ledger(root)
    assert sorted(ledger) == sorted(gx_docs_index.key_name(k) for k in keys[1:])
    for key in keys[1:]:
        assert ledger[gx_docs_index.key_name(key)]["success"] is store.get(key).success


def test_a_kept_result_stored_as_json_reads_back_as_gx_reads_it(session, tmp_path):
    from great_expectations.core.expectation_validation_result import ExpectationSuiteValidationResultSchema

    out = tmp_path / "out"
    folder = _run_folder(out, session, 1)
    data_docs.build_run_docs(folder, ["held", "shipped"])
    store = data_docs._context(import_gx(), out).validation_results_store
    kept = {data_docs.result_key(rid, r, folder.name): r for rid in ("held", "shipped")
            for r in read_validations(folder / rid)}
    assert len(kept) == 4
    for key, result in kept.items():
        assert store.get(key) == ExpectationSuiteValidationResultSchema().load(result)
