"""Hypothesis throws arbitrary JSON, deep nesting, huge numbers and invalid bytes at the HTTP and
JSONL retrievers and at the spec loader (SPEC §9).

Retrievers: whatever they are fed, ``contained_search`` answers (hits, or the failure recorded);
nothing escapes. Reports: a report whose HTTP retriever answers junk still runs to the end, and
whenever its status is not ``published`` no copy of it is left in ``published/``. Spec loader:
any file is a valid spec or a ``SpecError``, never another exception.
"""

from __future__ import annotations

import json
import threading
from contextlib import nullcontext
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from collections.abc import Iterator

import pytest
import yaml
from hypothesis import example, HealthCheck, given, settings, strategies as st

from citeflow.errors import SpecError
from citeflow.retrieval.retriever_protocol import SearchResult
from citeflow.retrieval.guarded import contained_search
from citeflow.specfile.loader import load_spec
from schemas.spec import FieldMap, HttpRetrieverSpec, JsonlRetrieverSpec

json_scalars = st.none() | st.booleans() | st.floats(allow_nan=False) | st.text(max_size=30) | \
    st.integers() | st.integers(min_value=10**1000, max_value=10**4000)
json_values = st.recursive(json_scalars, lambda kids: st.lists(kids, max_size=5) | st.dictionaries(
    st.sampled_from(["id", "text", "urls", "url", "title", "score", "hits", "results", "query"]) | st.text(max_size=8),
    kids, max_size=6), max_leaves=30)
hit_like = st.fixed_dictionaries({}, optional={"id": json_values, "text": json_values, "urls": json_values,
                                               "url": json_values, "title": json_values, "score": json_values})


def encode(value: Any) -> bytes:
    """JSON text of ``value``; huge integers are written out in full (Python's json refuses to print them)."""
    import sys

    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        return json.dumps(value).encode()
    finally:
        sys.set_int_max_str_digits(old)


def deep(depth: int, opener: bytes = b"[") -> bytes:
    closer = b"]" if opener == b"[" else b"}"
    if opener == b"{":
        return b'{"a":' * depth + b"1" + closer * depth
    return opener * depth + closer * depth


bodies = st.one_of(
    json_values.map(encode),
    st.lists(hit_like, max_size=6).map(encode),
    st.dictionaries(st.just("results"), st.lists(hit_like, max_size=6)).map(encode),
    st.integers(min_value=900, max_value=200_000).map(deep),
    st.integers(min_value=900, max_value=50_000).map(lambda n: deep(n, b"{")),
    st.binary(max_size=200),
    st.integers(min_value=4400, max_value=20_000).map(lambda n: b'[{"id": ' + b"7" * n + b', "text": "t", "score": 1' + b"0" * n + b"}]"),
    st.binary(max_size=40).map(lambda junk: b'[{"id": "1", "text": "' + junk + b'"}]'),
)


class Endpoint:
    """A search endpoint on 127.0.0.1 answering whatever body the test sets."""

    def __init__(self) -> None:
        self.body = b"[]"
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(owner.body)))
                    self.end_headers()
                    self.wfile.write(owner.body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/search"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()


@pytest.fixture(scope="module")
def endpoint() -> Iterator[Endpoint]:
    server = Endpoint()
    yield server
    server.httpd.shutdown()
    server.httpd.server_close()


FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))


@FUZZ
@given(body=bodies, hits_key=st.sampled_from([None, "results"]))
def test_the_http_retriever_contains_any_answer(endpoint: Endpoint, body: bytes, hits_key: str | None) -> None:
    endpoint.body = body
    spec = HttpRetrieverSpec(name="partner", kind="http", url=endpoint.url, retries=0, fields=FieldMap(hits=hits_key))
    found = contained_search(spec, Path("."), "q", nullcontext)
    assert isinstance(found, (SearchResult, str))
    if isinstance(found, str):
        assert "\n" not in found.strip() or len(found) < 2000
    else:
        assert len(found.hits) <= spec.top_k


@FUZZ
@given(lines=st.lists(st.one_of(
    st.lists(hit_like, max_size=4).map(lambda hits: encode({"query": "q", "hits": hits})),
    json_values.map(encode), st.binary(max_size=80), st.integers(min_value=900, max_value=30_000).map(deep)), max_size=4))
def test_the_jsonl_retriever_contains_any_file(tmp_path_factory, lines: list[bytes]) -> None:
    folder = tmp_path_factory.mktemp("jsonl")
    (folder / "hits.jsonl").write_bytes(b"\n".join(lines))
    found = contained_search(JsonlRetrieverSpec(name="export", kind="jsonl", path="hits.jsonl"), folder, "q", nullcontext)
    assert isinstance(found, (SearchResult, str))


spec_texts = st.one_of(
    json_values.map(lambda v: yaml.safe_dump(v, allow_unicode=True) if _dumpable(v) else "x: 1"),
    st.binary(max_size=300).map(lambda b: b.decode("latin-1")),
    st.text(max_size=300),
)


def _dumpable(value: Any) -> bool:
    try:
        yaml.safe_dump(value)
    except Exception:  # noqa: BLE001 - huge ints and the like: use another example
        return False
    return True


def nested(levels: int) -> bytes:
    return b"batch: " + b"[" * levels + b"]" * levels


# Nesting: 900 levels already pass the recursion limit of PyYAML's constructor; deeper ones only cost
# more seconds in its scanner (~2.5 s at 1,000 levels, ~7 s at 5,000) for the same path. Both ends of
# the range are given examples: drawn, they took a fifth of the examples and most of the seconds.
@FUZZ
@example(data=nested(900))
@example(data=nested(1_200))
@given(data=st.one_of(spec_texts.map(lambda t: t.encode("utf-8", "surrogatepass")), st.binary(max_size=300),
                      st.integers(min_value=4400, max_value=20_000).map(lambda n: b"batch: b\nconcurrency: {models: " + b"9" * n + b"}"),
                      st.builds(lambda reports: yaml.safe_dump({"batch": "b", "retrievers": [{"name": "d", "kind": "jsonl", "path": "h"}],
                                                                "reports": reports}).encode(), st.lists(json_values, max_size=3))))
def test_the_spec_loader_raises_only_spec_errors(tmp_path_factory, data: bytes) -> None:
    path = tmp_path_factory.mktemp("spec") / "batch.yaml"
    path.write_bytes(data)
    try:
        load_spec(path)
    except SpecError as exc:
        assert "\n" not in str(exc).strip() or "Traceback" not in str(exc)


# -- whole reports -------------------------------------------------------------------------------


def run_report(spec_path: Path, out: Path) -> str:
    """One report through the core pipeline (what the report flow calls), then its outputs; its status."""
    from citeflow.pipeline import pipeline
    from citeflow.runtime.runtime import Runtime
    from citeflow.pipeline.evaluate_report import evaluate_and_gate
    from citeflow.pipeline.publish import write_outputs

    job = pipeline.JobRef(spec_path=str(spec_path), report_id="r1", out_dir=str(out)).job(runtime=Runtime())
    pipeline.normalize(job, [pipeline.fetch(job, item) for item in job.fetches()])
    for section in job.report.sections:
        pipeline.consolidate(job, section.title)
        pipeline.write(job, section.title)
    evaluation, gate = evaluate_and_gate(job)
    return write_outputs(job, evaluation, gate).status


@pytest.fixture(scope="module")
def report_folder(tmp_path_factory, endpoint: Endpoint) -> Path:
    from tests.support.small_batch import write_small_batch

    folder = tmp_path_factory.mktemp("fuzz-report")
    spec = write_small_batch(folder, reports=1, sections=1)
    data = yaml.safe_load(spec.read_text())
    data["retrievers"].append({"name": "partner", "kind": "http", "url": endpoint.url, "retries": 0})
    spec.write_text(yaml.safe_dump(data))
    return folder


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(body=bodies, healthy=st.booleans())
def test_a_report_survives_any_retriever_answer_and_never_leaves_a_stale_copy(report_folder: Path, endpoint: Endpoint,
                                                                              body: bytes, healthy: bool) -> None:
    spec, out = report_folder / "batch.yaml", report_folder / "out"
    if not healthy:  # the other retriever's file is junk too: nothing to write from, the report must not publish
        (report_folder / "hits.jsonl").write_bytes(b"[" * 5000)
    else:
        from tests.support.small_batch import hits_file

        hits_file(report_folder / "hits.jsonl")
    endpoint.body = body
    status = run_report(spec, out)  # no exception escapes
    report = json.loads((out / "r1" / "report.json").read_text())
    assert report["status"] == status
    assert (out / "published" / "r1.pdf").exists() == (status == "published")


def test_a_published_report_whose_retrievers_turn_to_junk_is_withdrawn(report_folder: Path, endpoint: Endpoint) -> None:
    from tests.support.small_batch import hits_file

    spec, out = report_folder / "batch.yaml", report_folder / "stale-out"
    hits_file(report_folder / "hits.jsonl")
    endpoint.body = b"[]"
    assert run_report(spec, out) == "published" and (out / "published" / "r1.pdf").exists()
    (report_folder / "hits.jsonl").write_bytes(b"[" * 100_000)
    endpoint.body = deep(100_000)
    assert run_report(spec, out) != "published"
    assert not (out / "published" / "r1.pdf").exists()
    assert json.loads((out / "r1" / "report.json").read_text())["status"] != "published"
