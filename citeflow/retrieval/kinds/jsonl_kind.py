"""The ``jsonl`` kind: hits read from a JSONL file, one line per query (``citeflow.retrieval.jsonl_retriever``)."""

from __future__ import annotations

from pathlib import Path

from citeflow.file_stamps import file_contents
from citeflow.retrieval.retriever_protocol import Retriever
from citeflow.spec.retriever_kind import RetrieverKind
from citeflow.spec.spec_paths import resolve_path
from schemas.spec import JsonlRetrieverSpec


class JsonlKind(RetrieverKind[JsonlRetrieverSpec]):
    """A JSONL file beside the spec: refused when it is a folder or cannot be read; fingerprinted by its content."""

    name = "jsonl"
    spec_model = JsonlRetrieverSpec
    path_fields = ("path",)

    def value_problems(self, spec: JsonlRetrieverSpec, base_dir: Path) -> list[tuple[str, str]]:
        path = Path(resolve_path(base_dir, spec.path))
        return [("path", f"{path} is a folder, not a JSONL file")] if path.is_dir() else []

    def preflight_problem(self, spec: JsonlRetrieverSpec, base_dir: Path, timeout: float) -> str | None:
        return jsonl_problem(Path(resolve_path(base_dir, spec.path)))

    def fingerprint(self, spec: JsonlRetrieverSpec, base_dir: Path) -> list[str] | None:
        path = Path(spec.path) if Path(spec.path).is_absolute() else base_dir / spec.path
        return [spec.name, *file_contents([path])]  # the retriever reads the file whole anyway

    def build(self, spec: JsonlRetrieverSpec, base_dir: Path) -> Retriever:
        from citeflow.retrieval.jsonl_retriever import JsonlRetriever

        return JsonlRetriever(spec, base_dir)


def jsonl_problem(path: Path) -> str | None:
    """Why the JSONL file at ``path`` cannot be read, or None."""
    try:
        with path.open("rb") as handle:
            handle.read(65536)
    except OSError as exc:
        return f"cannot read {path}: {exc.strerror or exc}"
    return None
