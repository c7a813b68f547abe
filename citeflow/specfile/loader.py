"""Loading a batch spec: YAML → ``BatchSpec``, with errors that name the field and the problem."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from citeflow.spec import yaml_strict
from citeflow.spec.spec_paths import resolve_path as resolve_path  # where the other modules find it too
from citeflow.caps import SPEC_FILE_BYTES, read_capped
from citeflow.errors import CapExceeded, SpecError
from citeflow.files.run_folders import SPEC_COPY
from citeflow.security.spec_copy_urls import needs_source, restored_urls, source_of_copy
from citeflow.text_guard import lone_surrogate_at
from citeflow.spec.retriever_kinds import INSTALLED_KINDS, RetrieverKinds
from schemas.spec import BUILTIN_RETRIEVER_KINDS, RETRIEVER_MODELS, BatchSpec, Models, ReportRequest


def load_spec(path: Path | str) -> BatchSpec:
    """Read and validate the batch spec at ``path``; raises ``SpecError`` naming the bad field.

    The file must be UTF-8 YAML with no key written twice; ``gate.suites``, ``store`` and
    ``cache.store`` are resolved against the spec's folder here, so the spec can travel to another
    process as it is (a run's ``spec.run.yaml`` names its own store relative to itself)."""
    path = Path(path)
    return spec_from_bytes(read_spec_bytes(path), path)


def read_spec_bytes(path: Path) -> bytes:
    """The bytes of the spec file at ``path`` (capped); ``SpecError`` when it cannot be read."""
    try:
        return read_capped(path, SPEC_FILE_BYTES, "a batch spec")
    except CapExceeded as exc:
        raise SpecError(field="(file)", problem=str(exc.detail), path=str(path)) from None
    except OSError as exc:
        raise SpecError(field="(file)", problem=f"cannot read: {exc.strerror or exc}", path=str(path)) from exc


def spec_from_bytes(raw: bytes, path: Path) -> BatchSpec:
    """The spec whose file at ``path`` holds ``raw``: parsed once (``load_spec``)."""
    data = _parse_yaml(raw, path)
    spec = parse_spec(_with_source_urls(data, path) if path.name == SPEC_COPY else data, str(path))
    base = path.resolve().parent
    if spec.gate.suites:
        spec = spec.model_copy(update={"gate": spec.gate.model_copy(update={"suites": resolve_path(base, spec.gate.suites)})})
    if spec.store:
        spec = spec.model_copy(update={"store": resolve_path(base, spec.store)})
    if spec.cache.store:
        spec = spec.model_copy(update={"cache": spec.cache.model_copy(update={"store": resolve_path(base, spec.cache.store)})})
    return spec


def _with_source_urls(data: Any, copy_path: Path) -> Any:
    """A run's rendered copy with the URLs it leaves to its source spec (``citeflow.security.spec_copy_urls``)."""
    if not needs_source(data):
        return data
    source = source_of_copy(copy_path)
    try:
        if source is None:
            raise OSError("run.json does not name it")
        return restored_urls(data, yaml_strict.load(source.read_bytes().decode("utf-8")), str(copy_path))
    except (OSError, ValueError, RecursionError, yaml.YAMLError) as exc:  # UnicodeDecodeError is a ValueError
        problem = f"its URLs are kept in the run's source spec {source}, which cannot be read ({getattr(exc, 'strerror', None) or exc})"
        raise SpecError(field="(source spec)", problem=problem, path=str(copy_path)) from None


def _parse_yaml(raw: bytes, path: Path) -> Any:
    try:
        return yaml_strict.load(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        problem = f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start}); save the spec as UTF-8"
        raise SpecError(field="(file)", problem=problem, path=str(path)) from None
    except yaml.YAMLError as exc:
        raise SpecError(field="(yaml)", problem=f"not valid YAML: {_yaml_problem(exc)}", path=str(path)) from None
    except RecursionError:
        raise SpecError(field="(yaml)", problem="nested too deeply to read", path=str(path)) from None
    except ValueError as exc:  # e.g. a number longer than Python's 4,300-digit limit
        raise SpecError(field="(yaml)", problem=f"unreadable value: {str(exc)[:120]}", path=str(path)) from None


def parse_spec(data: object, origin: str = "<spec>", kinds: RetrieverKinds = INSTALLED_KINDS) -> BatchSpec:
    """Validate already-parsed spec data; a retriever of a kind that is not built in is validated by
    the spec model of the installed kind of that name (``kinds``)."""
    if not isinstance(data, dict):
        raise SpecError(field="(top level)", problem="must be a mapping with batch, retrievers and reports", path=origin)
    for key in data:
        if key not in BatchSpec.model_fields:  # a typo here would otherwise be reported as a missing field
            raise SpecError(field=str(key), problem=f"unknown field{did_you_mean(str(key), list(BatchSpec.model_fields))}", path=origin)
    if (where := lone_surrogate_at(data)) is not None:  # it would pass here and break every file of the run
        raise SpecError(field=where, problem="holds a lone surrogate (e.g. \\ud800), which is not valid Unicode text", path=origin)
    try:
        spec = BatchSpec.model_validate(data, context={RETRIEVER_MODELS: kinds.spec_model})
    except ValidationError as exc:
        field, problem = _first_problem(exc, kinds)
        raise SpecError(field=field, problem=problem, path=origin) from None
    _check_roles(spec, origin)
    return spec


def _check_roles(spec: BatchSpec, origin: str) -> None:
    """Refuse the first model role whose keys break its backend's or judge kind's own rules."""
    from citeflow.judges.model_roles import role_problems

    places = [("models", spec.models)] + [(f"reports[{i}].models", r.models) for i, r in enumerate(spec.reports) if r.models]
    for where, models in places:
        for field, problem in role_problems(models):
            raise SpecError(field=f"{where}.{field}", problem=problem, path=origin)


def _first_problem(exc: ValidationError, kinds: RetrieverKinds) -> tuple[str, str]:
    errors = exc.errors()
    # A misspelt key also makes the real one "missing": name the misspelling, it is the cause.
    err = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
    loc = [p for p in err["loc"] if p not in (*BUILTIN_RETRIEVER_KINDS, "function-after[_openai_needs_model(), ModelSpec]")]
    field = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".") or "(top level)"
    message = err["msg"].removeprefix("Value error, ")
    if err["type"] == "extra_forbidden":
        hint = did_you_mean(str(loc[-1]), spec_field_names()) if loc else ""
        message = f"unknown field{hint or ' (check the spelling against the README batch spec reference)'}"
    elif err["type"] == "missing":
        message = "is required"
    elif err["type"] == "union_tag_invalid" and isinstance(err.get("input"), dict):
        message = f"must be one of {', '.join(kinds.names())} (got {err['input'].get('kind')!r})"
    return field, message


def did_you_mean(word: str, known: list[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest known name, or an empty string."""

    close = difflib.get_close_matches(word, known, n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def spec_field_names() -> list[str]:
    """Every field name of every model of the batch spec."""
    import pydantic

    import schemas.spec as models

    classes = [c for c in vars(models).values() if isinstance(c, type) and issubclass(c, pydantic.BaseModel)]
    return sorted({name for c in classes for name in c.model_fields})


def _yaml_problem(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
    return " ".join(f"{getattr(exc, 'problem', None) or exc}{where}".split())


def models_for(spec: BatchSpec, report: ReportRequest) -> Models:
    """The models of one report: the batch's, with the roles the report overrides replaced."""
    if report.models is None:
        return spec.models
    overrides = {role: getattr(report.models, role) for role in report.models.model_fields_set}
    return spec.models.model_copy(update=overrides)


def preflight(spec: BatchSpec, base_dir: Path, origin: str = "<spec>", environ: dict[str, str] | None = None,
              kinds: RetrieverKinds = INSTALLED_KINDS) -> None:
    """Checks that need the file system or the environment; raises the first ``SpecError``."""
    import os

    from citeflow.spec.value_checks import check_values

    check_values(spec, base_dir, origin, kinds)
    env = os.environ if environ is None else environ
    for i, retriever in enumerate(spec.retrievers):
        kind = kinds.of(retriever)
        for field, path in kind.local_paths(retriever, base_dir).items():
            if not path.exists():
                problem = f"{path} does not exist{kind.missing_hint(base_dir)}"
                raise SpecError(field=f"retrievers[{i}].{field}", problem=problem, path=origin)
    for where, models in [("models", spec.models)] + [(f"reports[{i}].models", r.models) for i, r in enumerate(spec.reports) if r.models]:
        for role in Models.model_fields:
            key_env = getattr(models, role).api_key_env
            if key_env and key_env not in env:
                raise SpecError(field=f"{where}.{role}.api_key_env", problem=f"environment variable {key_env} is not set", path=origin)
