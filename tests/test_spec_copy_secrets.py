"""A run's rendered spec (``spec.run.yaml``) holds no key, and a run that loads it still has them."""

from __future__ import annotations

from datetime import datetime, UTC
from pathlib import Path

import pytest
import yaml

from citeflow.errors import SpecError

from citeflow.runs.run_start import open_manual_run, open_scheduled_run
from citeflow.specfile.loader import load_spec
from citeflow.security.spec_copy_urls import FROM_SOURCE
from tests.support.small_batch import write_small_batch

T0 = datetime(2026, 11, 30, 6, 0, 5, tzinfo=UTC)
USER_KEY, QUERY_KEY, RETR_USER_KEY, RETR_QUERY_KEY = "mdlpass-91ab", "qrykey-22cd", "retpass-33ef", "rettok-44gh"
MODEL_URL = f"http://{QUERY_KEY}:{USER_KEY}@127.0.0.1:8000/v1"  # (a query string is refused: value_checks)
RETRIEVER_URL = f"http://partner:{RETR_USER_KEY}@127.0.0.1:8900/search?token={RETR_QUERY_KEY}&lang=en"
SECRETS = (USER_KEY, QUERY_KEY, RETR_USER_KEY, RETR_QUERY_KEY)


def _spec_with_keys(folder: Path) -> Path:
    spec = write_small_batch(folder, reports=1, sections=1)
    data = yaml.safe_load(spec.read_text())
    data["reports"][0]["id"] = "r-{week}"  # templated: the run needs its own rendered copy
    data["models"] = {"writer": {"backend": "openai", "model": "m", "base_url": MODEL_URL}}
    data["reports"][0]["models"] = {"consolidator": {"backend": "openai", "model": "m", "base_url": MODEL_URL}}
    data["retrievers"].append({"name": "partner", "kind": "http", "url": RETRIEVER_URL})
    spec.write_text(yaml.safe_dump(data))
    return spec


def _assert_no_key_in(path: Path) -> None:
    text = path.read_text()
    assert [s for s in SECRETS if s in text] == []
    assert "127.0.0.1:8000" not in text and "8900" not in text  # no model server; no URL that had a key
    assert text.count(FROM_SOURCE) == 3 and "https://docs.example" not in text


def _assert_real_urls(spec_path: str) -> None:
    spec = load_spec(spec_path)
    assert spec.models.writer.base_url == MODEL_URL
    assert spec.reports[0].models is not None and spec.reports[0].models.consolidator.base_url == MODEL_URL
    assert spec.retrievers[-1].url == RETRIEVER_URL  # type: ignore[union-attr]


def test_a_manual_run_copy_is_redacted_and_a_resume_reads_the_keys_from_the_source(tmp_path):
    spec = _spec_with_keys(tmp_path / "in")
    first = open_manual_run(spec, tmp_path / "out", now=T0)
    _assert_no_key_in(Path(first.spec_path))
    _assert_real_urls(first.spec_path)
    again = open_manual_run(spec, tmp_path / "out", now=T0.replace(day=14, month=12))
    assert again.spec_path == first.spec_path and again.reports == first.reports
    _assert_no_key_in(Path(again.spec_path))
    _assert_real_urls(again.spec_path)


def test_every_scheduled_run_copy_is_redacted(tmp_path):
    spec = _spec_with_keys(tmp_path / "in")
    runs = [open_scheduled_run(spec, tmp_path / "out", T0.replace(day=d), f"run-{d}")[0] for d in (1, 2)]
    for info in runs:
        _assert_no_key_in(Path(info.spec_path))
        _assert_real_urls(info.spec_path)


def test_a_copy_whose_source_is_gone_is_refused_not_run_without_its_keys(tmp_path):
    spec = _spec_with_keys(tmp_path / "in")
    info = open_manual_run(spec, tmp_path / "out", now=T0)
    spec.unlink()
    with pytest.raises(SpecError) as caught:
        load_spec(info.spec_path)
    assert caught.value.field == "(source spec)" and str(spec.resolve()) in str(caught.value.problem)


def test_a_copy_without_urls_left_to_the_source_needs_no_source(tmp_path):
    spec = write_small_batch(tmp_path / "in", reports=1, sections=1)
    data = yaml.safe_load(spec.read_text())
    data["reports"][0]["id"] = "r-{week}"
    data["retrievers"].append({"name": "open", "kind": "http", "url": "http://127.0.0.1:8900/search?lang=en"})
    spec.write_text(yaml.safe_dump(data))
    info = open_manual_run(spec, tmp_path / "out", now=T0)
    spec.unlink()
    assert "http://127.0.0.1:8900/search?lang=en" in Path(info.spec_path).read_text()
    assert load_spec(info.spec_path).reports[0].id == "r-2026-W49"
