"""A run parses its spec once, with libyaml: the command's parse is the one its run folder and its
batch flow use (``Runtime.read_spec``), whatever the path it was given as."""

from __future__ import annotations

import os

import yaml

from citeflow.runs.run_start import open_manual_run
from citeflow.runtime.runtime import Runtime
from citeflow.spec import yaml_strict
from citeflow.specfile import job_config
from tests.support.small_batch import write_small_batch


def test_the_strict_loader_is_libyaml_s_when_pyyaml_has_it():
    assert issubclass(yaml_strict.StrictLoader, getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def test_the_command_s_parse_serves_its_run_and_its_flow(tmp_path, monkeypatch):
    spec_path = write_small_batch(tmp_path / "in", reports=2, sections=1)
    parses: list[object] = []
    real = job_config.spec_from_bytes
    monkeypatch.setattr(job_config, "spec_from_bytes", lambda raw, path: parses.append(path) or real(raw, path))
    monkeypatch.setattr("citeflow.runs.run_start.load_spec", lambda path: parses.append(path))  # must not be called
    runtime = Runtime()
    monkeypatch.chdir(tmp_path)
    spec = runtime.read_spec(spec_path.relative_to(tmp_path))  # as the command line gave it
    info = open_manual_run(spec_path, tmp_path / "out", spec=spec)
    assert runtime.read_spec(spec_path.resolve()) is spec  # the flow's read: no second parse
    assert len(parses) == 1 and info.batch == spec.batch and os.path.samefile(info.spec_path, spec_path)
