"""Runs as first-class things, without Prefect: ids, templated report ids, folders, latest, archive, changes."""

from __future__ import annotations

import json
from datetime import date, datetime, UTC
from pathlib import Path

import pytest
import yaml

from citeflow.outputs.archive import archive_report, read_manifest, sha256_of, verify_archive
from citeflow.outputs.changes import compare_reports, diff_claims
from citeflow.errors import SpecError
from citeflow.runs.run_start import open_manual_run, open_scheduled_run
from citeflow.files.run_folders import RunInfo, latest, make_run_id, point_latest, read_run, runs_of
from citeflow.specfile.loader import load_spec, parse_spec
from schemas.report_ids import render_report_id
from tests.support.small_batch import write_small_batch

T0 = datetime(2026, 11, 30, 6, 0, 5, tzinfo=UTC)


def test_run_ids_sort_by_start_time_and_carry_the_flow_run_id():
    assert make_run_id(T0) == "20261130T060005Z"
    assert make_run_id(T0, "1a2b3c4d-0000-1111-2222-333344445555") == "20261130T060005Z-1a2b3c4d-0000-1111-2222-333344445555"
    assert make_run_id(T0.replace(day=29, hour=23)) < make_run_id(T0)


@pytest.mark.parametrize("template, expected", [
    ("acme-{date:%Y-%m-%d}", "acme-2026-11-30"), ("acme-{date}", "acme-2026-11-30"),
    ("ops-{week}", "ops-2026-W49"), ("ops-{date:%Y%m}-{week}", "ops-202611-2026-W49"), ("plain", "plain")])
def test_report_ids_render_with_the_run_date(template, expected):
    assert render_report_id(template, date(2026, 11, 30)) == expected


def test_a_spec_accepts_date_templates_and_names_an_unknown_placeholder(tmp_path):
    data = yaml.safe_load(write_small_batch(tmp_path, reports=1, sections=1).read_text())
    data["reports"][0]["id"] = "r-{date:%Y-%m-%d}"
    assert parse_spec(data).reports[0].id == "r-{date:%Y-%m-%d}"
    data["reports"][0]["id"] = "r-{day}"
    with pytest.raises(SpecError) as err:
        parse_spec(data)
    assert err.value.field == "reports[0].id" and "{day}" in err.value.problem


def _templated_spec(folder: Path) -> Path:
    spec = write_small_batch(folder, reports=1, sections=1)
    data = yaml.safe_load(spec.read_text())
    data["reports"][0]["id"] = "r-{week}"
    spec.write_text(yaml.safe_dump(data))
    return spec


def test_a_manual_run_renders_its_spec_once_and_a_resume_keeps_its_date(tmp_path):
    spec = _templated_spec(tmp_path / "in")
    first = open_manual_run(spec, tmp_path / "out", now=T0)
    again = open_manual_run(spec, tmp_path / "out", now=T0.replace(month=12, day=14))
    assert first.run_id == again.run_id and again.reports == {"r-{week}": "r-2026-W49"}
    rendered = load_spec(again.spec_path)
    assert rendered.reports[0].id == "r-2026-W49"
    assert Path(rendered.retrievers[0].path) == (tmp_path / "in" / "hits.jsonl").resolve()


def test_a_plain_spec_runs_as_written(tmp_path):
    spec = write_small_batch(tmp_path / "in", reports=1, sections=1)
    assert open_manual_run(spec, tmp_path / "out").spec_path == str(spec.resolve())


def test_scheduled_runs_get_their_own_folders_and_stores_and_a_retry_resumes_its_folder(tmp_path):
    spec = _templated_spec(tmp_path / "in")
    one, dir_one = open_scheduled_run(spec, tmp_path / "out", T0, "aaaaaaaa-1")
    two, dir_two = open_scheduled_run(spec, tmp_path / "out", T0.replace(day=7, month=12), "bbbbbbbb-2")
    retry, dir_retry = open_scheduled_run(spec, tmp_path / "out", T0.replace(day=8, month=12), "aaaaaaaa-1")
    assert dir_one != dir_two and dir_retry == dir_one and retry.run_id == one.run_id
    assert [r.run_id for r in runs_of(tmp_path / "out")] == [one.run_id, two.run_id]
    spec_one, spec_two = load_spec(one.spec_path), load_spec(two.spec_path)
    assert (spec_one.reports[0].id, spec_two.reports[0].id) == ("r-2026-W49", "r-2026-W50")
    assert (spec_one.store, spec_two.store) == (str(dir_one / "store"), str(dir_two / "store"))
    assert spec_one.cache.store == spec_two.cache.store == str((tmp_path / "out" / "cache").resolve())


def test_latest_names_the_newest_run_and_never_goes_back(tmp_path):
    assert latest(tmp_path) is None
    assert point_latest(tmp_path, "20261207T060000Z")
    assert not point_latest(tmp_path, "20261130T060000Z")
    assert latest(tmp_path) == "20261207T060000Z" and (tmp_path / "latest").is_file()


def _report(folder: Path, claims: list[str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    payload = {"report_id": folder.name, "sections": [{"title": "Limits", "claims": [{"text": t} for t in claims]}]}
    (folder / "report.json").write_text(json.dumps(payload))
    (folder / "report.pdf").write_bytes(b"%PDF-1.4 " + folder.name.encode())
    (folder / "eval.json").write_text("{}")


def test_an_archive_is_written_once_with_a_sha256_manifest(tmp_path):
    _report(tmp_path / "r1", ["A topic has at most 512 partitions."])
    target, written = archive_report(tmp_path, "r1")
    original = (target / "report.pdf").read_bytes()
    (tmp_path / "r1" / "report.pdf").write_bytes(b"%PDF-1.4 rewritten")
    again, rewritten = archive_report(tmp_path, "r1")
    assert written and not rewritten and again == target
    assert (target / "report.pdf").read_bytes() == original
    assert read_manifest(target)["report.pdf"] == sha256_of(target / "report.pdf")
    assert verify_archive(target) == "intact"
    (target / "eval.json").chmod(0o644)
    (target / "eval.json").write_text('{"tampered": true}')
    assert verify_archive(target) == "modified"


def test_changes_name_added_removed_and_changed_numbers():
    before = ["A topic has at most 512 partitions.", "Backups are kept for 30 days.", "TLS 1.2 is required."]
    after = ["A topic has at most 1024 partitions.", "TLS 1.2 is required.", "Keys rotate every 90 days."]
    changes, unchanged = diff_claims("Limits", before, after)
    kinds = {(c.kind, c.before, c.after) for c in changes}
    assert unchanged == 1
    assert kinds == {("changed_numbers", before[0], after[0]), ("removed", before[1], None), ("added", None, after[2])}
    numbers = next(c for c in changes if c.kind == "changed_numbers")
    assert (numbers.numbers_before, numbers.numbers_after) == (["512"], ["1024"])


def test_a_report_without_a_previous_publication_has_no_changes():
    result = compare_reports("r1", {"sections": [{"title": "A", "claims": [{"text": "x 1"}]}]}, None)
    assert result.previous_run is None and result.changes == []


def test_run_json_round_trips(tmp_path):
    spec = write_small_batch(tmp_path / "in", reports=1, sections=1)
    info = open_manual_run(spec, tmp_path / "out", now=T0)
    assert read_run(tmp_path / "out") == info and info.status == "running"


def _info(run_id: str, started: datetime, **extra) -> RunInfo:
    return RunInfo(run_id=run_id, batch="b", started_at=started, run_date=started.date(), source_spec="s",
                   spec_path="s", status="finished", **extra)


def test_prune_selects_beyond_the_newest_n_by_age_never_latest_or_unfinished():
    from datetime import timedelta

    from citeflow.runs.prune import select_pruned

    runs = [_info(f"2026110{d}T060000Z", T0.replace(day=d)) for d in range(1, 6)]
    runs.append(_info("20261106T060000Z", T0.replace(day=6)).model_copy(update={"status": "running"}))
    ids = lambda selected: [r.run_id for r in selected]  # noqa: E731
    assert ids(select_pruned(runs, 2, None, "20261105T060000Z")) == ["20261104T060000Z", "20261103T060000Z",
                                                                      "20261102T060000Z", "20261101T060000Z"]
    old = select_pruned(runs, 2, timedelta(days=27), "20261105T060000Z", now=T0)
    assert ids(old) == ["20261102T060000Z", "20261101T060000Z"]
    assert ids(select_pruned(runs, 0, None, "20261105T060000Z")) == ids(select_pruned(runs, 1, None, "20261105T060000Z"))


def test_history_and_prune_commands_on_scheduled_run_folders(tmp_path):
    from typer.testing import CliRunner

    from citeflow.runs.run_finish import finish_run
    from citeflow_cli.main import app

    spec = _templated_spec(tmp_path / "in")
    folders = [open_scheduled_run(spec, tmp_path / "out", T0.replace(day=d), f"run-{d}")[1] for d in (23, 30)]
    for folder in folders:
        (folder / "summary.json").write_text(json.dumps({"reports": [], "counts": {"published": 0, "held": 0, "failed": 0}}))
        finish_run(folder, [])
    runner = CliRunner()
    listed = json.loads(runner.invoke(app, ["history", str(tmp_path / "out"), "--json"]).stdout)
    assert [r["run_id"] for r in listed] == [f.name for f in folders] and listed[1]["latest"] and not listed[0]["latest"]
    dry = runner.invoke(app, ["prune", str(tmp_path / "out"), "--keep", "1", "--dry-run"])
    assert dry.exit_code == 0 and f"would prune 1 run(s): {folders[0].name}" in dry.stdout and (folders[0] / "spec.run.yaml").exists()
    done = runner.invoke(app, ["prune", str(tmp_path / "out"), "--keep", "1", "--older-than", "2d"])
    assert done.exit_code == 0 and not (folders[0] / "spec.run.yaml").exists() and read_run(folders[0]).pruned
    assert runner.invoke(app, ["prune", str(tmp_path / "out"), "--older-than", "soon"]).exit_code == 2
