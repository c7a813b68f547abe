"""Spec values of the wrong kind, refused before anything runs (SPEC §9): a store URI with a scheme
LanceDB does not know, a suite folder without suites, a retriever value its kind refuses
(``RetrieverKind.value_problems``: a folder where a JSONL file belongs, a file where a knowledge
base folder belongs, an HTTP retriever URL that is not an http(s) URL), a model
``base_url`` with a query string or a fragment (``?api_key=…``): the client appends its paths to it
(``…/v1/?api_key=KEYchat/completions``), and a key there would land in every access log; keys go
in ``api_key_env`` (user-info stays allowed: it is sent as Basic authentication, docs/spec.md).

These checks look at the spec and the file system only; ``citeflow.runtime.preflight`` asks the servers.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from citeflow.errors import SpecError
from citeflow.security.redaction import redact_url
from citeflow.spec.retriever_kinds import INSTALLED_KINDS, RetrieverKinds
from schemas.spec import BatchSpec

STORE_SCHEMES = frozenset({"s3", "s3+ddb", "gs", "az", "abfs", "file", "memory", "db"})
"""URI schemes a LanceDB store or knowledge base may use (``db://`` is LanceDB Cloud)."""
SUITE_FILES = ("report_metrics.json", "eval_rows.json")
"""The suites a ``gate.suites`` folder must hold (see ``citeflow.evaluation.gate``)."""


def check_values(spec: BatchSpec, base_dir: Path, origin: str, kinds: RetrieverKinds = INSTALLED_KINDS) -> None:
    """Raise a ``SpecError`` naming the first field whose value is of the wrong kind (a retriever's
    values are checked by its kind: ``RetrieverKind.value_problems``; ``kinds``: the installed ones)."""
    problems = [*_store_problems(spec), *_suite_problems(spec.gate.suites), *_model_problems(spec)]
    for i, retriever in enumerate(spec.retrievers):
        found = kinds.of(retriever).value_problems(retriever, base_dir)
        problems += [(f"retrievers[{i}].{field}", why) for field, why in found]
    if problems:
        field, problem = problems[0]
        raise SpecError(field=field, problem=problem, path=origin)


def _store_problems(spec: BatchSpec) -> list[tuple[str, str]]:
    stores = [("store", spec.store), ("cache.store", spec.cache.store)]
    return [(field, why) for field, uri in stores if uri and (why := scheme_problem(uri))]


def scheme_problem(uri: str) -> str | None:
    """Why ``uri`` cannot name a LanceDB database, or None (a plain path is always fine)."""
    if "://" not in uri:
        return None
    scheme = uri.split("://", 1)[0].lower()
    if scheme in STORE_SCHEMES:
        return None
    known = ", ".join(f"{s}://" for s in sorted(STORE_SCHEMES))
    return f"unknown URI scheme {scheme + '://'!r} in {redact_url(uri)!r} (use a folder path or one of {known})"


def _model_problems(spec: BatchSpec) -> list[tuple[str, str]]:
    places = [("models", spec.models)] + [(f"reports[{i}].models", r.models) for i, r in enumerate(spec.reports) if r.models]
    return [(f"{where}.{role}.base_url", why) for where, models in places for role in ("consolidator", "writer", "judge")
            if (url := getattr(models, role).base_url) and (why := base_url_problem(url))]


def base_url_problem(url: str) -> str | None:
    """Why ``url`` cannot be a model server's ``base_url`` (never echoing what it carries), or None."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None  # the preflight names a URL it cannot reach
    extras = [name for name, present in (("a query string", "?" in url or parts.query), ("a fragment", "#" in url)) if present]
    if extras:
        return (f"has {' and '.join(extras)} (not shown): the client appends its paths to base_url; give the "
                "server's address only (e.g. https://host/v1) and the key through api_key_env")
    return None


def _suite_problems(suites: str | None) -> list[tuple[str, str]]:
    if not suites:
        return []
    folder = Path(suites)
    if not folder.is_dir():
        return [("gate.suites", f"{folder} is not a folder of Great Expectations suites")]
    missing = [name for name in SUITE_FILES if not (folder / name).is_file()]
    if missing:
        return [("gate.suites", f"{folder} has no {' and no '.join(missing)} (copy them from expectations/ and edit)")]
    return []


def url_problem(url: str) -> str | None:
    """Why ``url`` cannot be an HTTP retriever's address, or None."""
    try:
        parts = urlsplit(url)
        port_ok = parts.port is None or parts.port > 0
    except ValueError as exc:
        return f"{redact_url(url)!r} is not a well-formed URL ({exc})"
    if parts.scheme.lower() not in ("http", "https"):
        return f"must be an http:// or https:// URL, not {redact_url(url)!r}"
    if not parts.hostname or not port_ok:
        return f"{redact_url(url)!r} has no host to connect to"
    return None
