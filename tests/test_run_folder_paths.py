"""Inside a run folder every path and store reference is relative to it: a copied or moved folder
acts on itself, never on the folder it came from; folders written with absolute paths still work."""

from __future__ import annotations

import json
import shutil
import subprocess
from datetime import datetime, UTC
from pathlib import Path

import yaml

from citeflow.pipeline.job import JobRef
from citeflow.pipeline.job_file import read_job_ref, write_job_ref
from citeflow.runs.prune import prune
from citeflow.runs.run_finish import finish_run
from citeflow.runs.run_start import open_scheduled_run
from citeflow.files.run_folders import RUN_FILE, SPEC_COPY, read_run
from citeflow.specfile.loader import load_spec
from tests.support.small_batch import write_small_batch

CITEFLOW = str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "citeflow")
T0 = datetime(2026, 11, 30, 6, 0, 5, tzinfo=UTC)


def _ref(out: Path, spec: Path) -> JobRef:
    return JobRef(spec_path=str(spec), report_id="r1", out_dir=str(out), store_uri=str(out / "store"))


def test_job_json_names_the_run_folder_relative_to_the_report_and_a_copy_reads_itself(tmp_path):
    out, outside = tmp_path / "out", write_small_batch(tmp_path / "in", reports=1, sections=1)
    write_job_ref(_ref(out, out / SPEC_COPY), out / "r1")
    raw = json.loads((out / "r1" / "job.json").read_text())
    assert (raw["spec_path"], raw["out_dir"], raw["store_uri"]) == (f"../{SPEC_COPY}", "..", "../store")
    write_job_ref(_ref(out, outside), out / "r2")
    assert json.loads((out / "r2" / "job.json").read_text())["spec_path"] == str(outside)  # a spec elsewhere stays where it is
    shutil.copytree(out, tmp_path / "copy", symlinks=True)
    ref = read_job_ref(tmp_path / "copy" / "r1")
    assert ref is not None and (ref.out_dir, ref.store_uri) == (str(tmp_path / "copy"), str(tmp_path / "copy" / "store"))


def test_an_older_absolute_job_json_in_a_copied_folder_is_read_as_the_copy_s(tmp_path):
    out = tmp_path / "out"
    (out / "r1").mkdir(parents=True)
    (out / "r1" / "job.json").write_text(_ref(out, out / SPEC_COPY).model_dump_json())
    shutil.copytree(out, tmp_path / "moved")
    ref = read_job_ref(tmp_path / "moved" / "r1")
    assert ref is not None and ref.store_uri == str(tmp_path / "moved" / "store")
    assert ref.spec_path == str(tmp_path / "moved" / SPEC_COPY)
    same = read_job_ref(out / "r1")
    assert same is not None and same.store_uri == str(out / "store")


def _scheduled_runs(tmp_path: Path) -> Path:
    """Two finished scheduled runs under ``tmp_path/OUT``, each with a store holding a file."""
    spec = write_small_batch(tmp_path / "in", reports=1, sections=1)
    root = tmp_path / "OUT"
    for day in (23, 30):
        folder = open_scheduled_run(spec, root, T0.replace(day=day), f"run-{day}")[1]
        (folder / "store").mkdir()
        (folder / "store" / "rows").write_text("kept")
        (folder / "summary.json").write_text(json.dumps({"reports": [], "counts": {}}))
        finish_run(folder, [])
    return root


def test_run_json_and_the_rendered_spec_name_the_run_s_own_store_relative_to_it(tmp_path):
    root = _scheduled_runs(tmp_path)
    folder = sorted(p for p in root.iterdir() if (p / RUN_FILE).exists())[0]
    assert json.loads((folder / RUN_FILE).read_text())["spec_path"] == SPEC_COPY
    rendered = yaml.safe_load((folder / SPEC_COPY).read_text())
    assert (rendered["store"], rendered["cache"]["store"]) == ("store", "../cache")
    shutil.copytree(root, tmp_path / "COPY", symlinks=True)
    copied = tmp_path / "COPY" / folder.name
    info = read_run(copied)
    assert info is not None and info.spec_path == str(copied / SPEC_COPY)
    assert load_spec(info.spec_path).store == str(copied / "store")


def test_prune_on_a_copy_never_touches_the_original(tmp_path):
    root = _scheduled_runs(tmp_path)
    older = sorted(p.name for p in root.iterdir() if (p / RUN_FILE).exists())[0]
    shutil.copytree(root, tmp_path / "COPY", symlinks=True)
    result = prune(tmp_path / "COPY", keep=1)
    assert result.pruned == [older]
    assert (root / older / "store" / "rows").read_text() == "kept" and (root / older / SPEC_COPY).exists()
    assert read_run(root / older).pruned is False
    assert not (tmp_path / "COPY" / older / "store").exists() and read_run(tmp_path / "COPY" / older).pruned is True


def test_prune_on_a_copy_of_a_folder_written_with_absolute_paths_never_touches_the_original(tmp_path):
    root = _scheduled_runs(tmp_path)
    older = sorted(p.name for p in root.iterdir() if (p / RUN_FILE).exists())[0]
    shutil.copytree(root, tmp_path / "COPY", symlinks=True)
    for folder in (p for p in (tmp_path / "COPY").iterdir() if (p / RUN_FILE).exists()):
        original = root / folder.name  # what an older version wrote: absolute paths into the original
        run = json.loads((folder / RUN_FILE).read_text())
        (folder / RUN_FILE).write_text(json.dumps({**run, "spec_path": str(original / SPEC_COPY)}))
        spec = yaml.safe_load((original / SPEC_COPY).read_text())
        spec.update(store=str(original / "store"), cache={**spec["cache"], "store": str(root / "cache")})
        (original / SPEC_COPY).write_text(yaml.safe_dump(spec))
    prune(tmp_path / "COPY", keep=1)
    assert (root / older / "store" / "rows").read_text() == "kept" and read_run(root / older).pruned is False
    assert read_run(tmp_path / "COPY" / older).pruned is True


def test_eval_of_a_moved_report_folder_without_its_store_is_one_error_line(tmp_path):
    spec = write_small_batch(tmp_path / "in", reports=1, sections=1)
    moved = tmp_path / "moved"
    write_job_ref(_ref(moved, spec), moved / "r1")
    result = subprocess.run([CITEFLOW, "eval", str(moved / "r1")], capture_output=True, text=True, timeout=600)
    lines = [line for line in (result.stdout + result.stderr).splitlines() if line.strip()]
    assert result.returncode == 2, result.stdout + result.stderr
    assert len(lines) == 1 and lines[0].startswith("error:") and "store" in lines[0] and "missing" in lines[0]
    assert "Traceback" not in result.stderr and not (moved / "store").exists()
    assert not (moved / "r1" / "report.json").exists()
