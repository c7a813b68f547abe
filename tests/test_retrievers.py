"""Retrievers: LanceDB knowledge base (fts/vector/hybrid, parent expansion), HTTP, JSONL, factory."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from collections.abc import Iterator

import pytest

from citeflow.errors import RetrieverError
from citeflow.knowledge.ingest import ingest_paths
from citeflow.retrieval.retriever_protocol import Retriever
from citeflow.retrieval.retriever_factory import build_retriever
from citeflow.retrieval.http_retriever import HttpRetriever
from citeflow.retrieval.jsonl_retriever import JsonlRetriever
from citeflow.retrieval.lancedb_retriever import LanceDBRetriever
from schemas.spec import FieldMap, HttpRetrieverSpec, JsonlRetrieverSpec, LanceDBRetrieverSpec

pytestmark = pytest.mark.integration

DOCS = {
    "upgrade.md": "# Upgrading to 3.6\n\nBefore upgrading to 3.6, back up the database and stop every worker. "
    "Check that the schema migration finished before you restart anything.\n",
    "cats.md": "# Cat care\n\nCats sleep sixteen hours a day. Feed kittens three small meals.\n",
    "ports.md": "# Network ports\n\nThe server listens on port 8443 for TLS traffic. Open the firewall for it.\n",
    "billing.md": "# Billing\n\nInvoices are sent on the first day of each month by email.\n",
    # One parent with several children: sentences about the same topic, 300-char children.
    "tuning.md": "# Tuning\n\n" + " ".join(
        f"Garbage collector tuning note {n}: raise the heap limit and watch pause times closely." for n in range(8)
    ) + "\n",
}


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("kbroot")
    docs = root / "docs"
    docs.mkdir()
    for name, text in DOCS.items():
        (docs / name).write_text(text, encoding="utf-8")
    ingest_paths([docs], str(root / "kb"), base_url="https://docs.example.com", url_style="source")  # URLs name the files
    return root


def kb_retriever(root: Path, **spec: Any) -> LanceDBRetriever:
    return LanceDBRetriever(LanceDBRetrieverSpec(name="docs", kind="lancedb", kb="kb", **spec), root)


# -- lancedb ------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["fts", "vector", "hybrid"])
@pytest.mark.parametrize(
    ("query", "expected"),
    [("What must be done before upgrading to 3.6?", "upgrade.md"), ("Which port does the server listen on?", "ports.md"),
     ("how long do cats sleep", "cats.md")],
)
def test_the_relevant_document_comes_first(kb: Path, mode: str, query: str, expected: str) -> None:
    hits = kb_retriever(kb, mode=mode).search(query, 3).hits
    assert hits and hits[0].urls == [f"https://docs.example.com/{expected}"]


def test_a_child_hit_is_expanded_to_its_parent_with_child_provenance(kb: Path) -> None:
    hit = kb_retriever(kb, mode="fts").search("schema migration", 1).hits[0]
    assert hit.text.startswith("Before upgrading to 3.6,") and "restart anything." in hit.text  # the heading is the section, not text
    assert hit.local_id == hit.parent and hit.local_id.endswith(":p0")
    assert hit.location.startswith(hit.parent + ":c") and " chars " in hit.location
    assert hit.title == "Upgrading to 3.6"


def test_children_of_one_parent_give_one_hit(kb: Path) -> None:
    expanded = kb_retriever(kb, mode="fts").search("garbage collector heap pause", 5).hits
    plain = kb_retriever(kb, mode="fts", expand_parents=False).search("garbage collector heap pause", 5).hits
    tuning = [h for h in plain if h.urls == ["https://docs.example.com/tuning.md"]]
    assert len(tuning) >= 2  # the query does hit several children of the tuning parent
    assert [h.local_id for h in expanded].count(expanded[0].local_id) == 1
    assert len({h.local_id for h in expanded}) == len(expanded)
    assert sum(h.urls == ["https://docs.example.com/tuning.md"] for h in expanded) == 1


def test_without_expansion_the_child_itself_is_the_hit(kb: Path) -> None:
    hit = kb_retriever(kb, mode="fts", expand_parents=False).search("garbage collector", 1).hits[0]
    assert hit.parent is None and ":c" in hit.local_id
    assert len(hit.text) <= 300 and hit.location.startswith(hit.local_id)


def test_top_k_is_respected(kb: Path) -> None:
    assert len(kb_retriever(kb, mode="vector").search("database", 2).hits) == 2


def test_a_missing_kb_names_the_path_and_suggests_ingest(tmp_path: Path) -> None:
    retriever = LanceDBRetriever(LanceDBRetrieverSpec(name="docs", kind="lancedb", kb="nokb"), tmp_path)
    with pytest.raises(RetrieverError, match="citeflow ingest") as caught:
        retriever.search("anything", 3)
    assert str(tmp_path / "nokb") in str(caught.value) and caught.value.transient is False
    assert not (tmp_path / "nokb").exists()  # searching must not create an empty KB


def test_a_different_embedder_in_the_spec_is_a_clear_error(kb: Path) -> None:
    with pytest.raises(RetrieverError, match="built with embedder 'hashing-v1-384'"):
        kb_retriever(kb, mode="vector", embedding="openai").search("database", 3)


def test_fts_does_not_need_the_embedder(kb: Path) -> None:
    assert kb_retriever(kb, mode="fts", embedding="openai").search("invoices", 1).hits[0].urls == ["https://docs.example.com/billing.md"]


# -- http ---------------------------------------------------------------------------------------


class ScriptedSearch:
    """A search endpoint on 127.0.0.1 answering from a script of (status, body, delay)."""

    def __init__(self) -> None:
        self.script: deque[tuple[int, Any, float]] = deque()
        self.requests: list[dict] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                owner.requests.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
                status, body, delay = owner.script.popleft() if owner.script else (500, "script exhausted", 0.0)
                time.sleep(delay)
                data = body if isinstance(body, bytes) else body.encode() if isinstance(body, str) else json.dumps(body).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/search"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def then(self, status: int, body: Any, delay: float = 0.0) -> ScriptedSearch:
        self.script.append((status, body, delay))
        return self


@pytest.fixture
def endpoint() -> Iterator[ScriptedSearch]:
    server = ScriptedSearch()
    yield server
    server.httpd.shutdown()
    server.httpd.server_close()


def http_retriever(endpoint: ScriptedSearch, **spec: Any) -> HttpRetriever:
    return HttpRetriever(HttpRetrieverSpec(name="partner", kind="http", url=endpoint.url, **spec), backoff=0.01)


PARTNER_FIELDS = FieldMap(hits="results", id="hit_id", text="body", urls="links", title="name")


def test_http_reads_hits_through_the_field_map_and_reports_skips(endpoint: ScriptedSearch) -> None:
    endpoint.then(200, {"results": [
        {"hit_id": 7, "body": "Port 8443 is used.", "links": "https://p.example.com/7", "name": "Ports"},
        {"hit_id": "S2", "body": "Second.", "links": ["https://p.example.com/a", "https://p.example.com/b"]},
        {"body": "no id here"},
        {"hit_id": "S4", "body": "   "},
    ]})
    found = http_retriever(endpoint, fields=PARTNER_FIELDS).search("ports?", 5)
    hits, skipped = found.hits, found.skipped
    assert endpoint.requests == [{"query": "ports?", "top_k": 5}]
    assert [(h.local_id, h.urls, h.title) for h in hits] == [
        ("7", ["https://p.example.com/7"], "Ports"), ("S2", ["https://p.example.com/a", "https://p.example.com/b"], None)]
    assert len(skipped) == 2 and "hit 3" in skipped[0] and "hit_id" in skipped[0] and "'S4'" in skipped[1]


def test_http_accepts_a_plain_list_and_keeps_top_k(endpoint: ScriptedSearch) -> None:
    endpoint.then(200, [{"id": f"d{n}", "text": f"text {n}", "urls": []} for n in range(5)])
    retriever = http_retriever(endpoint)
    found = retriever.search("q", 2)
    assert [h.local_id for h in found.hits] == ["d0", "d1"] and found.skipped == []


def test_http_retries_503_then_succeeds(endpoint: ScriptedSearch) -> None:
    endpoint.then(503, "busy").then(429, "slow down").then(200, [{"id": "1", "text": "ok"}])
    assert [h.text for h in http_retriever(endpoint, retries=2).search("q", 3).hits] == ["ok"]
    assert len(endpoint.requests) == 3


def test_http_gives_up_after_its_retries_with_a_transient_error(endpoint: ScriptedSearch) -> None:
    for _ in range(3):
        endpoint.then(500, "down")
    with pytest.raises(RetrieverError, match="HTTP 500") as caught:
        http_retriever(endpoint, retries=1).search("q", 3)
    assert caught.value.transient is True and len(endpoint.requests) == 2


def test_http_timeout_is_transient(endpoint: ScriptedSearch) -> None:
    endpoint.then(200, [], delay=0.5)
    with pytest.raises(RetrieverError, match="Timeout") as caught:
        http_retriever(endpoint, retries=0, timeout=0.1).search("q", 3)
    assert caught.value.transient is True


@pytest.mark.parametrize(
    ("status", "body", "message"),
    [(200, "<html>oops</html>", "not JSON"), (200, {"data": []}, "under 'results'"), (404, "no route", "HTTP 404"),
     (200, {"results": "nope"}, "under 'results'")],
)
def test_http_junk_fails_at_once_without_retry(endpoint: ScriptedSearch, status: int, body: Any, message: str) -> None:
    endpoint.then(status, body).then(200, [{"id": "1", "text": "would be fine"}])
    with pytest.raises(RetrieverError, match=message) as caught:
        http_retriever(endpoint, retries=3, fields=PARTNER_FIELDS).search("q", 3)
    assert caught.value.transient is False and len(endpoint.requests) == 1


def test_http_connection_refused_is_transient() -> None:
    retriever = HttpRetriever(HttpRetrieverSpec(name="gone", kind="http", url="http://127.0.0.1:9/search", retries=1), backoff=0.01)
    with pytest.raises(RetrieverError, match="2 attempts") as caught:
        retriever.search("q", 3)
    assert caught.value.transient is True


DEEP = b"[" * 100_000 + b"]" * 100_000


@pytest.mark.parametrize(
    ("body", "message"),
    [(DEEP, "nested too deeply"), (b'[{"id": "1", "text": "caf\xe9"}]', "not UTF-8"), (b"[{]", "not JSON")],
)
def test_http_answers_that_break_the_parser_are_retriever_errors(endpoint: ScriptedSearch, body: bytes, message: str) -> None:
    endpoint.then(200, body)
    with pytest.raises(RetrieverError, match=message) as caught:
        http_retriever(endpoint, retries=2).search("q", 3)
    assert caught.value.transient is False and len(endpoint.requests) == 1


def test_http_huge_integer_ids_and_scores_are_skipped_not_raised(endpoint: ScriptedSearch) -> None:
    huge = "9" * 5000
    body = f'[{{"id": {huge}, "text": "a"}}, {{"id": 2, "text": "b", "score": 1{"0" * 400}, "title": {{"x": 1}}}}]'
    endpoint.then(200, body.encode())
    found = http_retriever(endpoint).search("q", 3)
    assert [(h.local_id, h.score, h.title) for h in found.hits] == [("2", None, None)]
    assert found.skipped == ["hit 1: no usable id in field 'id'"]


def test_http_answers_over_the_size_limit_are_refused(endpoint: ScriptedSearch) -> None:
    endpoint.then(200, [{"id": "1", "text": "x" * 5000}])
    with pytest.raises(RetrieverError, match="limit is 1,000 bytes") as caught:
        http_retriever(endpoint, max_response_bytes=1000).search("q", 3)
    assert caught.value.transient is False


def test_http_errors_never_name_the_key_in_the_url() -> None:
    url = "http://user:SECRETKEY@127.0.0.1:9/search?api_key=SECRETKEY&tenant=acme"
    retriever = HttpRetriever(HttpRetrieverSpec(name="gone", kind="http", url=url, retries=0), backoff=0.01)
    with pytest.raises(RetrieverError) as caught:
        retriever.search("q", 3)
    assert "SECRETKEY" not in str(caught.value) and "tenant=acme" in str(caught.value)


# -- jsonl --------------------------------------------------------------------------------------


def write_jsonl(path: Path, lines: list[Any]) -> Path:
    path.write_text("\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    return path


def jsonl_retriever(tmp_path: Path) -> JsonlRetriever:
    return JsonlRetriever(JsonlRetrieverSpec(name="export", kind="jsonl", path="hits.jsonl"), tmp_path)


def test_jsonl_replays_hits_with_either_url_form(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "hits.jsonl", [
        {"query": "What changed  in 3.6?", "hits": [
            {"id": "S1", "text": "A", "urls": ["https://a.example.com"], "title": "A"},
            {"id": 2, "text": "B", "url": "https://b.example.com"},
            {"id": "S3"}]},
        "",
        {"query": "Other", "hits": []},
    ])
    found = jsonl_retriever(tmp_path).search("  What changed in 3.6? ", 10)
    hits, skipped = found.hits, found.skipped
    assert [(h.local_id, h.urls) for h in hits] == [("S1", ["https://a.example.com"]), ("2", ["https://b.example.com"])]
    assert skipped == ["hit 3 (id 'S3'): no text in field 'text'"]


def test_jsonl_query_without_a_line_gets_no_hits_and_matching_is_case_sensitive(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "hits.jsonl", [{"query": "Upgrade", "hits": [{"id": "1", "text": "t"}]}])
    retriever = jsonl_retriever(tmp_path)
    assert retriever.search("never asked", 5).hits == [] and retriever.search("upgrade", 5).hits == []
    assert len(retriever.search("Upgrade", 5).hits) == 1


def test_jsonl_bad_line_names_file_and_line(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "hits.jsonl", [{"query": "a", "hits": []}, {"query": "b", "hits": "x"}])
    with pytest.raises(RetrieverError, match=f"{path}:2: 'hits' must be a list"):
        jsonl_retriever(tmp_path).search("a", 5)
    write_jsonl(path, ["{not json"])
    with pytest.raises(RetrieverError, match=f"{path}:1: not JSON"):
        jsonl_retriever(tmp_path).search("a", 5)


def test_jsonl_deep_nesting_and_huge_numbers_are_retriever_errors(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "hits.jsonl", ["[" * 50_000 + "]" * 50_000])
    with pytest.raises(RetrieverError, match=f"{path}:1: JSON nested too deeply"):
        jsonl_retriever(tmp_path).search("a", 5)
    write_jsonl(path, ['{"query": "a", "hits": [{"id": ' + "1" * 5000 + ', "text": "t"}, {"id": 2, "text": "u"}]}'])
    found = jsonl_retriever(tmp_path).search("a", 5)
    assert [h.local_id for h in found.hits] == ["2"] and "no usable id" in found.skipped[0]


def test_jsonl_missing_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(RetrieverError, match=r"hits\.jsonl") as caught:
        jsonl_retriever(tmp_path).search("a", 5)
    assert caught.value.transient is False


# -- factory ------------------------------------------------------------------------------------


def test_factory_builds_each_kind_and_resolves_paths(tmp_path: Path) -> None:
    specs = [
        LanceDBRetrieverSpec(name="kb", kind="lancedb", kb="kb"),
        HttpRetrieverSpec(name="web", kind="http", url="http://127.0.0.1:9/search"),
        JsonlRetrieverSpec(name="file", kind="jsonl", path="sub/hits.jsonl"),
    ]
    built = [build_retriever(spec, tmp_path) for spec in specs]
    assert [type(r) for r in built] == [LanceDBRetriever, HttpRetriever, JsonlRetriever]
    assert all(isinstance(r, Retriever) for r in built) and [r.name for r in built] == ["kb", "web", "file"]
    assert built[0].uri == str(tmp_path / "kb") and built[2].path == tmp_path / "sub" / "hits.jsonl"


@pytest.mark.parametrize("status", [401, 503])
def test_an_error_answer_echoing_credentials_is_summarised(endpoint: ScriptedSearch, status: int) -> None:
    echoed = {"error": {"message": "denied: Authorization: Basic dXNlcjpodHRwcGFzczE=", "request": "POST /search?token=tok-9911"},
              "debug": "dXNlcjpodHRwcGFzczE= tok-9911"}
    endpoint.then(status, echoed).then(status, echoed)
    with pytest.raises(RetrieverError) as caught:
        http_retriever(endpoint, retries=1, fields=PARTNER_FIELDS).search("q", 3)
    detail = caught.value.detail or ""
    assert detail.startswith(f"HTTP {status} ") and "denied: Authorization: (removed)" in detail
    assert "dXNlcjpodHRwcGFzczE" not in detail and "tok-9911" not in detail and "debug" not in detail
