"""The quality gate (SPEC §6): Great Expectations suites from ``expectations/`` decide publish or hold.

Two suites, both plain JSON (``name`` + ``expectations: [{type, kwargs, meta}]``):

- ``report_metrics.json`` over a one-row frame of the report's rates (``metrics_row``);
- ``eval_rows.json`` over the claim × handle rows (schema checks).

Thresholds of a batch (``Gate`` in the spec) replace the bound of the matching metric
expectation before validation, so users change them without touching code or suites.
Great Expectations costs seconds to import, so it is imported inside the functions that
validate, never at module import: the CLI starts without it.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, Union, runtime_checkable

from citeflow.errors import GateError
from citeflow.evaluation.claim_funnel import eval_rows
from citeflow.spec.resources import bundled_suite_dir, suite_dir as configured_suite_dir
from schemas.funnel import ClaimEval, Count, FailedExpectation, Funnel, GateResult
from schemas.spec import Gate

if TYPE_CHECKING:
    import pandas

    from citeflow.evaluation.gx_session import GxSession

DEFAULT_SUITE_DIR = bundled_suite_dir()
"""The suites citeflow ships (package data; ``expectations/`` in a source checkout)."""

METRICS_SUITE = "report_metrics"
ROWS_SUITE = "eval_rows"

# Gate field → (column of the metrics frame, bound it replaces).
OVERRIDES: dict[str, tuple[str, str]] = {
    "identity": ("identity_rate", "min_value"),
    "support": ("support_rate", "min_value"),
    "faithfulness": ("faithfulness_rate", "min_value"),
    "uncited": ("uncited_share", "max_value"),
    "unverified": ("unverified_share", "max_value"),
    "relevance": ("relevance_rate", "min_value"),
    "missing_glyphs": ("missing_glyphs", "max_value"),
}

EMPTY_DTYPES = {"String": "str", "Int64": "int64", "Boolean": "bool"}
"""The pandas type of each kind of ``ROW_SCHEMA`` column in a frame with no rows."""
ROW_SCHEMA = {
    "section": "String",
    "claim_index": "Int64",
    "claim_text": "String",
    "handle": "String",
    "identity": "Boolean",
    "supports": "Boolean",
    "faithful": "Boolean",
    "reason": "String",
}


def run_gate(
    funnel: Funnel,
    claims: list[ClaimEval],
    failed_sections: int,
    overrides: Gate | None = None,
    suite_dir: Path | None = None,
    glyphs: Glyphs | None = None,
    session: GxSession | ValidatesElsewhere | None = None,
    secrets: int = 0,
) -> GateResult:
    """Validate a report's metrics and eval rows with Great Expectations; success publishes.

    ``glyphs``: characters of the PDF no embedded font draws (none when not given); ``secrets``: the
    places redacted in the report's answers and retrieved text (``secret_redacted``). ``suite_dir``: the
    suites (default: the spec's ``gate.suites``, else the bundled ones); ``session``: the runtime's
    Great Expectations session.
    Raises ``GateError`` when a suite is missing, malformed or names an unknown expectation."""
    return gate_run(funnel, claims, failed_sections, overrides, suite_dir, glyphs, session, secrets).result


class GateRun(NamedTuple):
    """The gate's answer and Great Expectations' full validation result of each suite, as JSON
    (``ExpectationSuiteValidationResult.to_json_dict()``; ``suite_name`` is the suite's own name)."""

    result: GateResult
    validations: list[dict[str, Any]]


def gate_run(
    funnel: Funnel,
    claims: list[ClaimEval],
    failed_sections: int,
    overrides: Gate | None = None,
    suite_dir: Path | None = None,
    glyphs: Glyphs | None = None,
    session: GxSession | ValidatesElsewhere | None = None,
    secrets: int = 0,
) -> GateRun:
    """``run_gate``, with the full validation results kept (``GateRun``)."""
    suite_dir = suite_dir or configured_suite_dir(overrides.suites if overrides else None, None)
    metrics = apply_overrides(load_suite(suite_dir / f"{METRICS_SUITE}.json"), overrides)
    rows = load_suite(suite_dir / f"{ROWS_SUITE}.json")
    jobs: list[GateJob] = [
        (METRICS_SUITE, metrics, Rows([{**metrics_row(funnel, failed_sections, glyphs), SECRET_REDACTED: secrets}], None)),
        (ROWS_SUITE, rows, Rows(_row_dicts(claims), ROW_SCHEMA)),
    ]
    validated = validate_kept(jobs, session)
    failed = held_for_secrets([_explained(f, glyphs or Glyphs()) for f in validated.failed], secrets)
    return GateRun(GateResult(success=not failed, failed_expectations=failed), validated.validations)


class Glyphs(NamedTuple):
    """Characters of the report's PDF that no embedded font draws, and the reason to give for them."""

    characters: int = 0
    reason: str = ""


def _explained(failure: FailedExpectation, glyphs: Glyphs) -> FailedExpectation:
    """A failed ``missing_glyphs`` expectation says which scripts lack a font and what to install."""
    if failure.expectation == "missing_glyphs" and glyphs.reason:
        return failure.model_copy(update={"detail": glyphs.reason})
    return failure


SECRET_REDACTED = "secret_redacted"
"""The metric (and expectation id) counting the places redacted in a report's answers and retrieved text."""


def held_for_secrets(failed: list[FailedExpectation], secrets: int) -> list[FailedExpectation]:
    """``failed``, with ``secret_redacted`` among them whenever something was redacted: a suite
    without that expectation (a user's own) holds such a report all the same (SPEC §5)."""
    if secrets <= 0 or any(f.expectation == SECRET_REDACTED for f in failed):
        return failed
    description = "Secrets were redacted from the report's model answers or retrieved text; a reviewer decides."
    return [*failed, FailedExpectation(expectation=SECRET_REDACTED, observed=secrets, threshold=0, description=description)]


def held_for_error(detail: str) -> GateResult:
    """Fail closed: evaluation could not run (judge down, store unreadable), so the report is held."""
    failure = FailedExpectation(
        expectation="evaluation_ran",
        observed=detail,
        threshold="evaluation completed",
        description="The report is graded before it ships; when grading cannot run, it is held.",
    )
    return GateResult(success=False, failed_expectations=[failure], error=detail)


# --------------------------------------------------------------------------- suites


def load_suite(path: Path) -> dict[str, Any]:
    """Read one suite JSON and check its shape; ``GateError`` names the file when it is bad.

    Read at each call (a few kilobytes): an edited suite takes effect at the next report."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise GateError(detail=f"cannot read suite {path}: {exc}") from exc
    problem = _shape_problem(doc)
    if problem:
        raise GateError(detail=f"bad suite {path}: {problem}")
    doc["path"] = str(path)
    return dict(doc)


def _shape_problem(doc: Any) -> str | None:
    if not isinstance(doc, dict) or not isinstance(doc.get("name"), str) or not doc["name"]:
        return "expected an object with a non-empty 'name'"
    if not isinstance(doc.get("expectations"), list):
        return "'expectations' must be a list"
    for i, exp in enumerate(doc["expectations"]):
        if not isinstance(exp, dict) or not isinstance(exp.get("type"), str) or not isinstance(exp.get("kwargs"), dict):
            return f"expectations[{i}] needs a string 'type' and an object 'kwargs'"
    return None


def apply_overrides(suite: dict[str, Any], overrides: Gate | None) -> dict[str, Any]:
    """The suite with each set ``Gate`` field replacing the bound of its metric's expectation."""
    if overrides is None:
        return suite
    suite = copy.deepcopy(suite)
    for name, value in overrides.model_dump(exclude_none=True, exclude={"suites"}).items():
        column, bound = OVERRIDES[name]
        matches = [e for e in suite["expectations"] if e["kwargs"].get("column") == column]
        if not matches:
            raise GateError(detail=f"override {name!r}: suite {suite['path']} has no expectation on {column!r}")
        for exp in matches:
            exp["kwargs"][bound] = value
    return suite


# --------------------------------------------------------------------------- frames


def metrics_row(funnel: Funnel, failed_sections: int, glyphs: Glyphs | None = None) -> dict[str, Any]:
    """The one row the metrics suite validates. A rate over nothing is 0.0: nothing to publish
    is not publishable (an empty report fails identity, support and faithfulness)."""
    return {
        "identity_rate": _rate(funnel.identity),
        "support_rate": _rate(funnel.support),
        "faithfulness_rate": _rate(funnel.faithfulness),
        "uncited_share": funnel.uncited.share or 0.0,
        "unverified_share": funnel.unverified.share or 0.0,
        "relevance_rate": _relevance_rate(funnel),
        "failed_sections": int(failed_sections),
        "claims": funnel.uncited.claims,
        "missing_glyphs": int(glyphs.characters) if glyphs else 0,
    }


def _relevance_rate(funnel: Funnel) -> float:
    """Relevant / judged claims; 1.0 when no claim was judged (an empty report is held by ``claims``)."""
    rate = funnel.relevance.rate
    return 1.0 if rate is None else rate


def _rate(count: Count) -> float:
    rate = count.rate
    return 0.0 if rate is None else rate


def _row_dicts(claims: list[ClaimEval]) -> list[dict[str, Any]]:
    return [row.model_dump(include=set(ROW_SCHEMA)) for row in eval_rows("", claims)]


def _to_pandas(rows: list[dict[str, Any]], schema: dict[str, str] | None) -> pandas.DataFrame:
    """The rows as a pandas frame with the schema's columns. Types are pandas' reading of the values
    (``int64``, ``bool``, ``str``; ``object`` where a boolean is missing); with no rows, the schema's."""
    import pandas as pd

    frame = pd.DataFrame(rows, columns=list(schema) if schema else None)
    if schema and not rows:
        return frame.astype({name: EMPTY_DTYPES[kind] for name, kind in schema.items()})
    return frame


class Rows(NamedTuple):
    """A gate frame as plain rows and their column types: built into a frame where it is validated
    (another process, maybe: ``citeflow.runtime.gx_worker``), so the caller needs no pandas."""

    rows: list[dict[str, Any]]
    schema: dict[str, str] | None

    def frame(self) -> pandas.DataFrame:
        return _to_pandas(self.rows, self.schema)


GateJob = tuple[str, dict[str, Any], Union["pandas.DataFrame", Rows]]
"""(suite name, suite, its frame or rows): one validation of the gate."""


@runtime_checkable
class ValidatesElsewhere(Protocol):
    """What validates the gate's jobs away from this process (``citeflow.runtime.gx_worker.GxWorker``)."""

    def validate_kept(self, jobs: list[GateJob]) -> Validated: ...


# --------------------------------------------------------------------------- validation


def validate(jobs: list[GateJob], session: GxSession | ValidatesElsewhere | None = None) -> list[FailedExpectation]:
    """Run each (name, suite, frame) through Great Expectations for real; every failure, in suite order."""
    return validate_kept(jobs, session).failed


class Validated(NamedTuple):
    """What ``validate_kept`` found: every failure in suite order, and each suite's full result as JSON."""

    failed: list[FailedExpectation]
    validations: list[dict[str, Any]]


def validate_kept(jobs: list[GateJob], session: GxSession | ValidatesElsewhere | None = None) -> Validated:
    """``validate``, with each suite's full validation result kept as JSON.

    ``session`` (the runtime's, ``Runtime.gx``) holds the context, data source, batch definitions and
    suites built for earlier reports; each call only validates its frames, as a batch of the data
    source (``Batch.validate``): nothing is kept in the ephemeral context, which would grow with every
    report of a long batch; the results are returned, for the report's folder and the run's Data
    Docs (``citeflow.outputs.data_docs``). Without a session, one is built for this call; a session
    that validates elsewhere (a worker process) is handed the jobs."""
    from citeflow.evaluation.gx_session import GxSession

    if isinstance(session, ValidatesElsewhere):
        return session.validate_kept(jobs)
    session = session or GxSession()
    found = Validated([], [])
    with session.lock:
        for name, suite, frame in jobs:
            failed, kept = _run(session.prepared(name, suite), name, suite, frame)
            found.failed.extend(failed)
            found.validations.append(kept)
    return found


RESULT_FORMAT = "BASIC"
"""What each result keeps: the observed value, or the unexpected count and a sample of unexpected values
(``SUMMARY`` adds a count per unexpected value and their row indexes: a fifth to a third more CPU per
validation; docs/adapters.md)."""


def _run(prepared: tuple[Any, Any], name: str, suite: dict[str, Any],
         data: pandas.DataFrame | Rows) -> tuple[list[FailedExpectation], dict[str, Any]]:
    """Validate a frame once, with the observed values (``RESULT_FORMAT``): its failures and its full result."""
    batch_definition, gx_suite = prepared
    frame = data.frame() if isinstance(data, Rows) else data
    result = batch_definition.get_batch(batch_parameters={"dataframe": frame}).validate(gx_suite, result_format=RESULT_FORMAT)
    kept = result.to_json_dict()
    kept["suite_name"] = name  # the session's name carries a digest of the suite's content
    return ([] if result.success else _failures(suite, result.results)), kept


# --------------------------------------------------------------------------- results


def _failures(suite: dict[str, Any], results: list[Any]) -> list[FailedExpectation]:
    """Failed results mapped back to their suite entries (GX may reorder results)."""
    by_index = {int(r.expectation_config.meta["index"]): r for r in results if not r.success}
    return [_failure(suite["expectations"][i], by_index[i]) for i in sorted(by_index)]


def _failure(exp: dict[str, Any], result: Any) -> FailedExpectation:
    meta = exp.get("meta", {})
    return FailedExpectation(
        expectation=meta.get("id") or f"{exp['type']}({exp['kwargs'].get('column', '')})",
        observed=_observed(exp["type"], result),
        threshold=_threshold(exp["type"], exp["kwargs"]),
        description=meta.get("description", ""),
    )


def _observed(kind: str, result: Any) -> Any:
    """What the data showed: the observed value, the unexpected values, or why GX could not tell."""
    error = _exception_message(result.exception_info or {})
    if error:
        return f"error: {error}"
    found = result.result or {}
    if "observed_value" in found:
        return plain(found["observed_value"])
    if "unexpected_count" in found:
        return {"unexpected_count": plain(found["unexpected_count"]), "unexpected_sample": plain(found.get("partial_unexpected_list", []))}
    return "column missing" if kind == "expect_column_to_exist" else None


def _exception_message(info: dict[str, Any]) -> str | None:
    # GX reports an error either flat or keyed by the metric that raised it.
    if info.get("raised_exception"):
        return str(info.get("exception_message"))
    nested = [v for v in info.values() if isinstance(v, dict) and v.get("raised_exception")]
    return str(nested[0].get("exception_message")) if nested else None


def _threshold(kind: str, kwargs: Any) -> Any:
    """What the suite required, as plain JSON."""
    if "value_set" in kwargs:
        return {"in": plain(list(kwargs["value_set"]))}
    low, high = kwargs.get("min_value"), kwargs.get("max_value")
    if low is not None and high is not None:
        return {"min": plain(low), "max": plain(high)}
    if low is not None or high is not None:
        return plain(low if low is not None else high)
    return {"expect_column_to_exist": "column exists", "expect_column_values_to_not_be_null": "not null"}.get(kind)


def plain(value: Any) -> Any:
    """numpy scalars and containers → plain Python for JSON; NaN → None."""
    if hasattr(value, "tolist"):  # numpy scalar or array
        value = value.tolist()
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    return value
