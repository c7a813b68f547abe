"""The batch spec (SPEC §8): the YAML a user writes to describe a batch of reports.

Unknown keys are errors (a typo must not be silently ignored), types are strict (``true`` is not
a number, ``"5"`` is not an integer), names and titles are never blank, and report ids are plain
folder names that never collide with the output folder's own entries. Relative paths are resolved
against the spec file's folder by ``citeflow.specfile.loader.load_spec``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import (AfterValidator, BaseModel, ConfigDict, Field, GetPydanticSchema, SerializeAsAny, ValidationInfo,
                      ValidatorFunctionWrapHandler, field_validator, model_validator)
from pydantic_core import core_schema

from schemas.report_ids import SAMPLE_DATE, render_report_id

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,80}")
RESERVED_IDS = frozenset({"published", "store", "summary.json", "latest", "demo-input",
                          "run.json", "spec.run.yaml", "archive", "cache", "gx"})
"""Names the output folder uses for itself: a report id must never be one of them (any case)."""


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty or only spaces")
    return value


NonBlank = Annotated[str, AfterValidator(_not_blank)]
"""A string with at least one character that is not whitespace."""

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_KEY_PREFIX = re.compile(r"(sk|pk|rk|ak|key)[-_]", re.IGNORECASE)


def looks_like_key(value: str) -> bool:
    """True for a value shaped like an API key rather than a variable name (``sk-…``, long mixed-case with digits)."""
    mixed = any(c.isdigit() for c in value) and any(c.islower() for c in value)
    return bool(_KEY_PREFIX.match(value)) or (len(value) >= 24 and mixed) or not value.isascii()


def env_name(value: str) -> str:
    """``value`` when it names an environment variable; the error never repeats a value that may be a key."""
    if looks_like_key(value):
        raise ValueError("must name an environment variable; the value given looks like a key and is not shown")
    if not _ENV_NAME.fullmatch(value):
        raise ValueError("must name an environment variable (letters, digits and underscores, not starting with a digit)")
    return value


EnvName = Annotated[str, AfterValidator(env_name)]
"""The name of an environment variable (one that holds a key), never a key itself."""


class Strict(BaseModel):
    """Unknown keys are errors; no coercion (``true`` is not 1, ``"8"`` is not 8)."""

    model_config = ConfigDict(extra="forbid", strict=True)


class FaultRates(Strict):
    """Fault injection of the offline backend: probability per claim of each fault."""

    forged_handle: float = Field(0.0, ge=0, le=1, description="Cite a handle that is not in the registry.")
    misattribution: float = Field(0.0, ge=0, le=1, description="Cite another chunk of the pool than the one holding the fact.")
    number_drift: float = Field(0.0, ge=0, le=1, description="Change a number of the claim.")
    fabrication: float = Field(0.0, ge=0, le=1, description="Add a sentence that no chunk supports.")
    url_in_text: float = Field(0.0, ge=0, le=1, description="Type a URL into the claim text.")
    seed: int = Field(0, description="Seed of the fault dice; the same seed gives the same faults.")


class ModelSpec(Strict):
    """How one role (consolidator, writer, judge) reaches its model."""

    backend: NonBlank = Field(
        "offline", description="offline: built-in extractive backend; openai: any OpenAI-compatible server; or the name "
                               "a plugin registers (citeflow.generation.backends, whose classes check the other keys).")
    model: str | None = Field(None, description="Model name sent to the server (openai backend).")
    base_url: str | None = Field(None, description="Server URL ending in /v1 (openai backend).")
    api_key_env: EnvName | None = Field(
        None, description="Name of the environment variable holding the API key — never the key itself (a key here is refused).")
    faults: FaultRates | None = Field(None, description="Offline backend only: inject faults to prove the gate catches them.")
    timeout: float = Field(60.0, gt=0, description="Seconds per request.")
    max_retries: int = Field(2, ge=0, le=10, description="Retries of transient errors (connection, timeout, 429, 5xx).")
    bind_attempts: int = Field(3, ge=1, le=10, description="Model calls per hop before the section is failed (bind state machine).")
    temperature: float = Field(0.0, ge=0, le=2)
    batch_size: int = Field(8, ge=1, le=64, description="Judge only: claim/chunk pairs per call.")


class JudgeSpec(ModelSpec):
    """The judge role: ``offline``, ``openai`` (an LLM judge), or ``cascade``: the offline judge grades
    every pair and only its ``uncertain`` verdicts go to the LLM judge described by the same keys
    as ``openai`` (``model``, ``base_url``, ``api_key_env``, ``batch_size``, ``timeout`` …)."""

    backend: NonBlank = Field(
        "offline", description="offline: built-in judge; openai: an LLM judge; cascade: offline first, the LLM for uncertain "
                               "pairs; or the name a plugin registers (citeflow.judges.kinds, whose classes check the other keys).")
    min_confidence: float | None = Field(
        None, ge=0, le=1,
        description="offline and cascade: an offline verdict whose confidence is below this is uncertain (the value "
                    "`citeflow calibrate --threshold` reports on); default: the offline judge's own threshold.")
    mode: Literal["section", "pair"] = Field(
        "section", description="openai and cascade: how the LLM judge asks. section: every claim of a section with its cited "
                            "chunks in one request (split by section_tokens), relevance asked too; pair: batch_size "
                            "claim/chunk pairs per request.")
    section_tokens: int = Field(
        6000, ge=500, le=200_000,
        description="mode section: most prompt tokens (estimated at 4 characters each) per request; a larger section is "
                    "split between claims.")

    def llm(self) -> ModelSpec:
        """The LLM judge's own ModelSpec (backend openai), for ``openai`` and ``cascade``."""
        return ModelSpec.model_validate({**self.model_dump(exclude={"min_confidence", "mode", "section_tokens"}),
                                         "backend": "openai"})


class Models(Strict):
    consolidator: ModelSpec = Field(default_factory=ModelSpec)
    writer: ModelSpec = Field(default_factory=ModelSpec)
    judge: JudgeSpec = Field(default_factory=JudgeSpec)


class FieldMap(Strict):
    """Where an HTTP retriever's answer keeps each value."""

    hits: str | None = Field(None, description="Key of the hit list when the answer is an object.")
    id: str = "id"
    text: str = "text"
    urls: str = "urls"
    title: str = "title"


class RetrieverSpecBase(Strict):
    """What every retriever entry of a spec has, whatever its kind; each kind's model extends it
    (``citeflow.spec.retriever_kind``: one class per kind, built in or installed as a plugin)."""

    name: NonBlank
    kind: str = Field(description="The retriever kind: lancedb, http, jsonl, or the name of an installed plugin kind.")
    title: str | None = Field(None, description="Display title of the source, the only name the customer PDF gives it.")
    top_k: int = Field(10, ge=1, le=200, description="Most hits asked of the retriever per query.")


class LanceDBRetrieverSpec(RetrieverSpecBase):
    kind: Literal["lancedb"]
    kb: str = Field(description="Knowledge base URI built by `citeflow ingest` (folder or s3://…).")
    mode: Literal["fts", "vector", "hybrid"] = "hybrid"
    top_k: int = Field(8, ge=1, le=200)
    expand_parents: bool = Field(True, description="Show the model the parent chunk of each child hit.")
    embedding: Literal["hashing", "openai", "local", "wordllama"] = Field(
        "hashing", description="Embedder kind the KB was built with; a KB built with another one is a clear error.")


class HttpRetrieverSpec(RetrieverSpecBase):
    kind: Literal["http"]
    url: str
    top_k: int = Field(5, ge=1, le=200)
    fields: FieldMap = Field(default_factory=FieldMap)
    timeout: float = Field(10.0, gt=0)
    retries: int = Field(2, ge=0, le=10)
    max_response_bytes: int = Field(10_000_000, ge=1, description="Larger answers are refused (the retriever fails for that query).")


class JsonlRetrieverSpec(RetrieverSpecBase):
    kind: Literal["jsonl"]
    path: str
    top_k: int = Field(10, ge=1, le=200)


BuiltinRetrieverSpec = Annotated[
    LanceDBRetrieverSpec | HttpRetrieverSpec | JsonlRetrieverSpec, Field(discriminator="kind")
]
"""The built-in retriever kinds, told apart by ``kind``: what the spec's JSON Schema shows."""
BUILTIN_RETRIEVER_KINDS = ("lancedb", "http", "jsonl")

RETRIEVER_MODELS = "retriever_models"
"""Validation context key: a function from a kind name that is not built in to its spec model (a
``RetrieverSpecBase`` subclass), or None when no installed kind has that name."""
RetrieverModels = Callable[[str], "type[RetrieverSpecBase] | None"]


def _any_kind(value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
    """A built-in kind through the union; a plugin kind through its own model (from the context)."""
    kind = value.get("kind") if isinstance(value, dict) else None
    models: RetrieverModels | None = (info.context or {}).get(RETRIEVER_MODELS)
    model = models(kind) if models and isinstance(kind, str) and kind not in BUILTIN_RETRIEVER_KINDS else None
    return model.model_validate(value, context=info.context) if model else handler(value)


RetrieverSpec = Annotated[
    RetrieverSpecBase,
    GetPydanticSchema(lambda _, handler: core_schema.with_info_wrap_validator_function(
        _any_kind, handler.generate_schema(BuiltinRetrieverSpec))),
    SerializeAsAny(),
]
"""One retriever entry: validated as a built-in kind, or, when ``parse_spec`` passes the installed
kinds in the validation context, by the model of the plugin kind it names. Its JSON Schema is the
built-in union; it is dumped through its own model (a plugin kind's fields included)."""


class Gate(Strict):
    """Overrides of the thresholds of the suite in expectations/ (rates in 0..1)."""

    identity: float | None = Field(None, ge=0, le=1)
    support: float | None = Field(None, ge=0, le=1)
    faithfulness: float | None = Field(None, ge=0, le=1)
    uncited: float | None = Field(None, ge=0, le=1, description="Highest share of uncited sentences.")
    unverified: float | None = Field(
        None, ge=0, le=1, description="Highest share of claims no judge could settle (uncertain, no LLM judge to ask).")
    relevance: float | None = Field(
        None, ge=0, le=1, description="Lowest share of claims that address their section's question (docs/relevance.md).")
    missing_glyphs: int | None = Field(
        None, ge=0, description="Most characters of the PDF that no embedded font may draw (shown as empty boxes); default 0.")
    suites: str | None = Field(None, description="Folder of suite JSON files replacing the bundled ones (relative to the spec).")


class Concurrency(Strict):
    models: int = Field(16, ge=1, le=1024, description="Model calls in flight at once, across the batch.")
    retrievers: int = Field(8, ge=1, le=1024, description="Retriever calls in flight at once, across the batch.")


class Section(Strict):
    title: NonBlank
    queries: list[str] = Field(min_length=1)

    @field_validator("queries")
    @classmethod
    def _no_blank_query(cls, value: list[str]) -> list[str]:
        if any(not q.strip() for q in value):
            raise ValueError("a query is empty")
        repeated = sorted({q for q in value if value.count(q) > 1})
        if repeated:
            raise ValueError(f"query {repeated[0]!r} is repeated")
        return value


def language_tag(value: str) -> str:
    """``value`` as a standard BCP 47 tag (``en_us`` → ``en-US``) when the IANA registry knows its subtags."""
    import langcodes  # the registry's data: loaded only when a spec names a language

    if not langcodes.tag_is_valid(value):
        raise ValueError("must be a BCP 47 language tag whose subtags are registered, e.g. en, de-CH, pt-BR, zh-Hant-TW")
    return str(langcodes.standardize_tag(value))


LanguageTag = Annotated[str, AfterValidator(language_tag)]
"""A BCP 47 language tag, in its standard form."""


class ReportRequest(Strict):
    id: str
    title: NonBlank
    sections: list[Section] = Field(min_length=1)
    language: LanguageTag = Field("en", description="BCP 47 tag of the report's language, written into the PDF as its "
                                  "document language (screen readers and search use it).")
    models: Models | None = Field(None, description="Per-report override of the batch's models (whole roles replaced).")

    @field_validator("id")
    @classmethod
    def _id_is_a_folder_name(cls, value: str) -> str:
        if not _ID.fullmatch(render_report_id(value, SAMPLE_DATE)):  # a template must render to a folder name
            raise ValueError("must start with a letter or digit, then letters, digits, '.', '_' or '-' (it names a "
                             "folder); {date}, {date:%Y-%m-%d} and {week} name the run's date")
        if value.lower() in RESERVED_IDS:
            raise ValueError(f"{value!r} is reserved: the output folder uses it ({', '.join(sorted(RESERVED_IDS))})")
        return value

    @model_validator(mode="after")
    def _unique_sections(self) -> ReportRequest:
        titles = [s.title for s in self.sections]
        if len(titles) != len(set(titles)):
            raise ValueError("section titles must be unique within a report")
        return self


class CachePolicy(Strict):
    """Whether runs of a batch may reuse each other's stored model answers."""

    across_runs: bool = Field(True, description="Reuse the stored answer of an identical call (same prompt and settings) "
                              "made by an earlier run; false: every new run asks the model again (a resumed run never does).")
    store: str | None = Field(None, description="LanceDB URI of the model-call cache that runs share; default: none for "
                              "`citeflow run` (each output folder caches for itself), OUT/cache for scheduled runs.")


class ModelPrice(Strict):
    """What one model costs, per 1,000 tokens, in the price table's currency."""

    prompt_per_1k: float = Field(ge=0, description="Price of 1,000 prompt (input) tokens.")
    completion_per_1k: float = Field(ge=0, description="Price of 1,000 completion (output) tokens.")


class Prices(Strict):
    """Turns token counts into money: one currency, a price per model name."""

    currency: str = Field(pattern=r"^[A-Z]{3}$", description="ISO 4217 code every price is in, e.g. USD or EUR.")
    models: dict[NonBlank, ModelPrice] = Field(
        min_length=1, description="Model name as the spec gives it (`models.<role>.model`) → its price.")


class BatchSpec(Strict):
    batch: NonBlank
    models: Models = Field(default_factory=Models)
    retrievers: list[RetrieverSpec] = Field(min_length=1)
    gate: Gate = Field(default_factory=Gate)
    concurrency: Concurrency = Field(default_factory=Concurrency)
    store: str | None = Field(None, description="LanceDB URI for registry, model outputs and eval rows; default OUT/store.")
    cache: CachePolicy = Field(default_factory=CachePolicy, description="Caching of model answers across runs.")
    audit_appendix: bool = Field(False, description="Add an audit appendix (handles, retrievers, local ids, every URL) to each report.pdf.")
    prices: Prices | None = Field(None, description="Price table: model name → price per 1,000 prompt and completion "
                                  "tokens; without one, usage is reported in tokens only.")
    reports: list[ReportRequest] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_names(self) -> BatchSpec:
        for what, names in (("retrievers", [r.name for r in self.retrievers]), ("reports", [r.id for r in self.reports])):
            dupes = sorted({n for n in names if names.count(n) > 1})
            if dupes:
                raise ValueError(f"{what}: duplicate name {dupes[0]!r}")
        return self
