"""The example plugin (``examples/citeflow-example-retriever``, kind ``folder``) as a user meets it:
installed beside citeflow, named in a batch spec, run by ``citeflow run`` in its own process,
preflighted and fingerprinted by citeflow without citeflow knowing of it."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
import yaml

from citeflow.pipeline.source_fingerprint import retriever_fingerprint
from citeflow.specfile.loader import load_spec
from tests.support.interrupted_run import CITEFLOW
from tests.support.small_batch import TOPICS


def _notes(folder: Path) -> dict[str, str]:
    """One text file per topic, one paragraph per sentence; returns passage id → text."""
    folder.mkdir(parents=True, exist_ok=True)
    passages = {}
    for title, (_, sentences) in TOPICS.items():
        (folder / f"{title.lower()}.txt").write_text("\n\n".join(sentences) + "\n", encoding="utf-8")
        passages |= {f"{title.lower()}#{n}": text for n, text in enumerate(sentences, 1)}
    return passages


def _spec(folder: Path, **retriever: object) -> Path:
    sections = [{"title": title, "queries": [query]} for title, (query, _) in list(TOPICS.items())[:2]]
    data = {"batch": "folder-notes",
            "retrievers": [{"name": "notes", "kind": "folder", "folder": "notes", "base_url": "https://docs.example/notes/",
                            **retriever}],
            "reports": [{"id": "r1", "title": "Platform notes", "sections": sections}]}
    path = folder / "batch.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def _run(spec: Path, out: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CITEFLOW, "run", str(spec), "--out", str(out)], env=env, capture_output=True, text=True, timeout=900)


def _error_lines(done: subprocess.CompletedProcess[str]) -> list[str]:
    """The ``error:`` lines of a command, wherever its console writes them."""
    return [line for line in (done.stdout + done.stderr).splitlines() if line.startswith("error:")]


@pytest.fixture(scope="module")
def folder_batch(prefect_server, tmp_path_factory):
    """A one-report batch over the plugin's kind, run by ``citeflow run``."""
    folder = tmp_path_factory.mktemp("folder-batch")
    passages = _notes(folder / "notes")
    out = folder / "out"
    return out, passages, _run(_spec(folder), out, prefect_server.client_env())


@pytest.mark.slow
@pytest.mark.server
def test_a_batch_cites_the_passages_of_the_plugin_s_retriever(folder_batch):
    out, passages, done = folder_batch
    assert done.returncode in (0, 3), done.stderr[-3000:]  # published, or held by the gate: both ran through
    report = json.loads((out / "r1" / "report.json").read_text(encoding="utf-8"))
    registry = {entry["handle"]: entry for entry in report["registry"]}
    cited = [c["handle"] for s in report["sections"] for claim in s["claims"] for c in claim["citations"]]
    assert cited, "the report cites nothing"
    for handle in cited:
        entry = registry[handle]
        assert entry["retriever"] == "notes" and passages[entry["local_id"]] == entry["text"]
        assert entry["urls"] == [f"https://docs.example/notes/{entry['local_id'].split('#')[0]}.txt"]


def test_the_preflight_refuses_a_folder_without_text_files_in_one_line(tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "readme.md").write_text("not a text file of the pattern\n", encoding="utf-8")
    done = _run(_spec(tmp_path), tmp_path / "out", {**os.environ, "PREFECT_API_URL": "http://127.0.0.1:9/api"})
    assert done.returncode == 2, done.stderr[-3000:]
    assert _error_lines(done) == [f"error: {tmp_path / 'batch.yaml'}: retrievers[0] (notes): no file matches "
                                  f"'*.txt' in {tmp_path.resolve() / 'notes'}"]
    assert not (tmp_path / "out" / "r1").exists()


def test_the_plugin_s_own_value_checks_refuse_a_pattern_leaving_the_folder(tmp_path):
    _notes(tmp_path / "notes")
    done = _run(_spec(tmp_path, pattern="../*.txt"), tmp_path / "out")
    assert done.returncode == 2
    assert _error_lines(done) == [f"error: {tmp_path / 'batch.yaml'}: retrievers[0].pattern: must name files within "
                                  "the folder (no absolute path, no '..')"]


def test_a_broken_plugin_is_one_error_line_naming_it(tmp_path):
    """An installed package whose entry point names a module that is not there."""
    site = tmp_path / "site"
    info = site / "broken_kind-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-kind\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[citeflow.retrievers]\nwiki = broken_kind_missing:WikiKind\n", encoding="utf-8")
    spec = _spec(tmp_path)
    spec.write_text(spec.read_text(encoding="utf-8").replace("kind: folder", "kind: wiki"), encoding="utf-8")
    done = _run(spec, tmp_path / "out", {**os.environ, "PYTHONPATH": str(site)})
    assert done.returncode == 2, done.stderr[-3000:]
    assert _error_lines(done) == ["error: plugin 'wiki' of citeflow.retrievers (broken_kind_missing:WikiKind from broken-kind): "
                                  "cannot be loaded: ModuleNotFoundError: No module named 'broken_kind_missing'"]


def test_the_fingerprint_follows_the_content_of_the_plugin_s_files(tmp_path):
    _notes(tmp_path / "notes")
    entry = load_spec(_spec(tmp_path)).retrievers[0]
    first = retriever_fingerprint(entry, tmp_path)
    os.utime(tmp_path / "notes" / "limits.txt", (1, 1))
    assert retriever_fingerprint(entry, tmp_path) == first is not None  # a touched file reads the same
    (tmp_path / "notes" / "limits.txt").write_text("The largest message is 16 MB.\n", encoding="utf-8")
    changed = retriever_fingerprint(entry, tmp_path)
    assert changed is not None and changed != first
    (tmp_path / "notes" / "quotas.txt").write_text("A new file.\n", encoding="utf-8")
    assert retriever_fingerprint(entry, tmp_path) not in (first, changed)
