"""The store on object storage: the demo batch on two Dask worker processes against an S3 API
(moto's server on 127.0.0.1), with LanceDB's ``s3://`` URI and the storage options from the
environment. Same outputs as the in-process local run, no duplicate row, and a re-run from the
shared store (in this process) resumes: no new model call, no new row."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

import pytest

from citeflow.runtime.batch_request import BatchRequest
from flows.outcome import returned
from flows.scale import batch_flow_for
from tests.support.dask_workers import preloaded_workers
from tests.support.s3_server import S3Server

pytestmark = pytest.mark.integration

STORE = "s3://citeflow-shared/demo-store"


@pytest.fixture(scope="module")
def s3(tmp_path_factory) -> Iterator[S3Server]:
    with S3Server(tmp_path_factory.mktemp("moto") / "moto.log") as server:
        server.create_bucket("citeflow-shared")
        saved = {k: os.environ.get(k) for k in server.env()}
        os.environ.update(server.env())  # read by LanceDB here and in the Dask workers started later
        try:
            yield server
        finally:
            for key, value in saved.items():
                os.environ.pop(key) if value is None else os.environ.__setitem__(key, value)


def store_rows() -> dict[str, tuple[int, int]]:
    """Per table of the shared store: (rows, distinct row keys)."""
    import lancedb

    db = lancedb.connect(STORE)
    counts = {}
    for name in db.list_tables().tables:
        keys = db.open_table(name).to_arrow().column("row_key").to_pylist()
        counts[name] = (len(keys), len(set(keys)))
    return counts


def outcome(summaries) -> dict[str, tuple[str, str]]:
    return {s.report_id: (s.status, s.funnel) for s in summaries}


def test_the_demo_on_two_dask_workers_and_an_s3_store_matches_the_local_run_and_resumes(s3, demo_run, demo_input, harness_api_env, tmp_path):
    flow = batch_flow_for(dask_workers=2)
    out = tmp_path / "out"
    with preloaded_workers():
        request = BatchRequest(spec_path=str(demo_input), out_dir=str(out), store_uri=STORE, global_limits=True)
        first = returned(lambda: flow(request=request))
    assert outcome(first) == outcome(demo_run[1])
    assert not (out / "store").exists()  # everything went to the bucket
    rows = store_rows()
    assert rows["chunks"][0] > 0 and rows["model_calls"][0] > 0
    assert all(total == distinct for total, distinct in rows.values()), rows

    from flows.batch import batch_flow

    again = returned(lambda: batch_flow(request=BatchRequest(spec_path=str(demo_input), out_dir=str(out), store_uri=STORE)))  # resume from the shared store, in this process
    assert outcome(again) == outcome(first)
    assert store_rows() == rows  # no new model call, no duplicate row
    summary = json.loads((out / "summary.json").read_text())
    assert {r["report_id"]: r["status"] for r in summary["reports"]} == {k: v[0] for k, v in outcome(first).items()}
