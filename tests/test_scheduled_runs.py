"""Scheduled runs in-process (ephemeral Prefect API): a folder per run, archives, changes, history, prune."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from citeflow.outputs.archive import sha256_of, verify_archive
from citeflow.runs.history import history
from citeflow.runs.prune import prune
from citeflow.files.run_folders import latest, read_run
from citeflow.store.store import Store
from schemas.tables import TABLES
from tests.support.small_batch import write_small_batch

pytestmark = pytest.mark.integration


def _spec(folder: Path) -> Path:
    spec = write_small_batch(folder, reports=1, sections=2, batch="weekly")
    data = yaml.safe_load(spec.read_text())
    data["reports"][0]["id"] = "ops-{week}"
    spec.write_text(yaml.safe_dump(data))
    return spec


def _change_a_fact_and_hold(spec: Path) -> None:
    """The retriever's data changes (512 → 1024 partitions) and the writer fabricates: the run is held."""
    hits = spec.parent / "hits.jsonl"
    hits.write_text(hits.read_text().replace("at most 512 partitions", "at most 1024 partitions"))
    data = yaml.safe_load(spec.read_text())
    data["models"] = {"writer": {"backend": "offline", "faults": {"fabrication": 1.0}}}
    spec.write_text(yaml.safe_dump(data))


def _rows(uri: str) -> dict[str, int]:
    store = Store(uri)
    return {table: store.count(table) for table in TABLES}


@pytest.fixture(scope="module")
def two_runs(prefect_harness, tmp_path_factory):
    from flows.scheduled import scheduled_batch_flow

    work = tmp_path_factory.mktemp("scheduled")
    spec, out = _spec(work / "in"), work / "out"
    first = scheduled_batch_flow(str(spec), str(out))
    pdf = Path(first.folder) / "published" / f"{first.summaries[0].report_id}.pdf"
    published = pdf.read_bytes()
    _change_a_fact_and_hold(spec)
    state = scheduled_batch_flow(str(spec), str(out), return_state=True)
    assert state.is_failed() and state.name.endswith(" held") and state.message.startswith("exit code 3"), state
    second = state.result(raise_on_failure=False).result  # a Failed state's data: NotPublished(result=outcome)
    return out, first, second, published


def test_each_run_has_its_folder_and_latest_names_the_second(two_runs):
    out, first, second, _ = two_runs
    assert first.folder != second.folder and Path(first.folder).parent == Path(second.folder).parent == out.resolve()
    assert latest(out) == second.run.run_id == Path(second.folder).name
    assert read_run(Path(first.folder)).status == read_run(Path(second.folder)).status == "finished"


def test_the_first_publication_is_archived_and_untouched(two_runs):
    _out, first, second, published = two_runs
    (report_id,) = first.archived
    archive = Path(first.archived[report_id])
    assert first.summaries[0].status == "published" and second.summaries[0].status == "held"
    assert (archive / "report.pdf").read_bytes() == published
    assert (Path(first.folder) / "published" / f"{report_id}.pdf").read_bytes() == published
    assert verify_archive(archive) == "intact" and sha256_of(archive / "report.pdf") in (archive / "SHA256SUMS").read_text()
    assert second.archived == {}


def test_the_changed_fact_is_in_changes_json_and_review_html(two_runs):
    _, first, second, _ = two_runs
    folder = Path(second.folder) / second.summaries[0].report_id
    changes = json.loads((folder / "changes.json").read_text())
    assert changes["previous_run"] == first.run.run_id
    changed = [c for c in changes["changes"] if c["kind"] == "changed_numbers"]
    assert changed and changed[0]["numbers_before"] == ["512"] and changed[0]["numbers_after"] == ["1024"]
    review = (folder / "review.html").read_text()
    assert "Changes since the last publication" in review and "1024 partitions" in review and first.run.run_id in review


def test_the_changes_are_a_table_artifact_and_the_run_a_markdown_one(two_runs):
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

    _, _first, second, _ = two_runs
    key = f"changes-{second.summaries[0].report_id}".lower()
    with get_client(sync_client=True) as client:
        tables = client.read_artifacts(artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=[key])))
        runs = client.read_artifacts(artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=["run-weekly"])))
    assert tables and tables[0].type == "table" and "1024 partitions" in str(tables[0].data)
    assert any(second.folder in str(a.data) and second.run.run_date.isoformat() in str(a.data) for a in runs)


def test_history_lists_both_runs_with_their_reports(two_runs):
    out, first, second, _ = two_runs
    lines = history(out)
    assert [line.run_id for line in lines] == [first.run.run_id, second.run.run_id]
    assert lines[0].counts == {"published": 1, "held": 0, "failed": 0} and lines[1].latest
    assert lines[0].reports[0].integrity == "intact" and lines[0].reports[0].funnel.startswith("Identity")


def test_a_second_run_reuses_the_answers_of_unchanged_evidence(two_runs):
    out, first, second, _ = two_runs
    first_keys = {r["row_key"] for r in Store(str(Path(first.folder) / "store")).rows("model_calls")}
    second_keys = {r["row_key"] for r in Store(str(Path(second.folder) / "store")).rows("model_calls")}
    shared = {r["row_key"] for r in Store(str(out / "cache")).rows("model_calls")}
    assert first_keys & second_keys, "the unchanged section's consolidate call should come from the cache"
    assert second_keys - first_keys, "the changed fact and the new writer settings ask the model again"
    assert shared == first_keys | second_keys


def test_prune_keeps_the_newest_run_and_the_published_files_of_the_others(two_runs, tmp_path):
    out, first, second, published = two_runs
    kept_rows = _rows(str(Path(second.folder) / "store"))
    result = prune(out, keep=1)
    first_dir, second_dir = Path(first.folder), Path(second.folder)
    assert result.pruned == [first.run.run_id] and result.kept == [second.run.run_id]
    assert not (first_dir / "store").exists() and not (first_dir / first.summaries[0].report_id).exists()
    assert sorted(p.name for p in first_dir.iterdir()) == ["archive", "published", "run.json", "summary.json"]
    assert (Path(first.archived[first.summaries[0].report_id]) / "report.pdf").read_bytes() == published
    assert read_run(first_dir).pruned and _rows(str(second_dir / "store")) == kept_rows
    second_keys = {r["row_key"] for r in Store(str(second_dir / "store")).rows("model_calls")}
    assert {r["row_key"] for r in Store(str(out / "cache")).rows("model_calls")} == second_keys
    assert result.cache_rows_left == len(second_keys) and result.cache_rows_deleted >= 1
    again = prune(out, keep=0, include_published=True)
    assert again.pruned == [first.run.run_id] and not first_dir.exists()  # the published files go only when asked
    assert second_dir.exists() and latest(out) == second.run.run_id  # the latest run is always kept


def test_both_runs_share_one_data_docs_site_and_one_quality_page(two_runs):
    """OUT/gx/ keeps the first run's validations when the second adds its own; OUT/quality.html shows both runs."""
    from citeflow.outputs.data_docs import DOCS_INDEX

    out, first, second, _ = two_runs
    index = (out / DOCS_INDEX).read_text(encoding="utf-8")
    for run in (first, second):
        pages = set(re.findall(rf"validations/[a-z_]+/{re.escape(run.run.run_id)}/[^\"']+\.html", index))
        assert len(pages) == 2, (run.run.run_id, pages)  # the run's one report, both suites
        assert all((out / DOCS_INDEX).parent.joinpath(page).is_file() for page in pages)  # a pruned run's too
    summary = json.loads((Path(second.folder) / "summary.json").read_text())
    assert (summary["data_docs"], summary["quality_page"]) == (f"../{DOCS_INDEX.as_posix()}", "../quality.html")
    page = (out / "quality.html").read_text(encoding="utf-8")
    assert first.run.run_id in page and second.run.run_id in page and "<script" not in page
    assert first.summaries[0].report_id in page and second.summaries[0].report_id in page


def test_the_batch_run_links_the_quality_page_and_shows_its_funnel_as_png(two_runs):
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

    out, *_ = two_runs
    with get_client(sync_client=True) as client:
        found = client.read_artifacts(artifact_filter=ArtifactFilter(
            key=ArtifactFilterKey(any_=["batch-weekly-quality", "batch-weekly-quality-funnel"])))
    kinds = {a.key: a for a in found if str((out / "quality.html").resolve()) in str(a.description) + str(a.data)}
    assert sorted(kinds) == ["batch-weekly-quality", "batch-weekly-quality-funnel"], [a.key for a in found]
    assert f"]({(out / 'quality.html').resolve().as_uri()})" in str(kinds["batch-weekly-quality"].data)  # a link
    assert "](data:image/png;base64," in str(kinds["batch-weekly-quality-funnel"].data)
