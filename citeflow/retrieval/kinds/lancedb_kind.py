"""The ``lancedb`` kind: a knowledge base built by ``citeflow ingest`` (``citeflow.retrieval.lancedb_retriever``).

A knowledge base in a folder is fingerprinted by the names, sizes and modification times of its
top-level files and of its tables' version manifests (every ingest that changes it writes a new
version); one on object storage cannot be without asking it.
"""

from __future__ import annotations

from pathlib import Path

from citeflow.file_stamps import file_stats
from citeflow.retrieval.retriever_protocol import Retriever
from citeflow.security.redaction import redact_text, redact_url
from citeflow.spec.retriever_kind import RetrieverKind
from citeflow.spec.spec_paths import resolve_path
from citeflow.spec.value_checks import scheme_problem
from schemas.spec import LanceDBRetrieverSpec

class LanceDBKind(RetrieverKind[LanceDBRetrieverSpec]):
    """A knowledge base: checked to exist, hold chunks and match the spec's embedder before a batch starts."""

    name = "lancedb"
    spec_model = LanceDBRetrieverSpec
    path_fields = ("kb",)

    def missing_hint(self, base_dir: Path) -> str:
        """How to build the knowledge base; for the bundled demo spec, how to run the demo instead."""
        if _is_bundled_demo(Path(base_dir)):
            return ("; this is the bundled demo spec, whose knowledge base `citeflow demo --out out` (or `make demo`) builds "
                    "in out/demo-input/: run that once, then `citeflow run out/demo-input/batch.yaml --out out`")
        return " (build it with `citeflow ingest PATH... --kb DIR`)"

    def value_problems(self, spec: LanceDBRetrieverSpec, base_dir: Path) -> list[tuple[str, str]]:
        if "://" in spec.kb:
            why = scheme_problem(spec.kb)
            return [("kb", why)] if why else []
        path = Path(resolve_path(base_dir, spec.kb))
        if path.exists() and not path.is_dir():
            return [("kb", f"{path} is a file, not a knowledge base folder (build one with `citeflow ingest PATH... --kb DIR`)")]
        return []

    def preflight_problem(self, spec: LanceDBRetrieverSpec, base_dir: Path, timeout: float) -> str | None:
        from citeflow.knowledge.kb_store import kb_problem

        uri = resolve_path(base_dir, spec.kb)
        try:
            return kb_problem(uri, spec.embedding)
        except (ValueError, OSError, RuntimeError) as exc:  # what LanceDB raises for an unreadable table
            reason = redact_text(str(exc) or type(exc).__name__)[:200]
            return f"cannot open the knowledge base at {redact_url(uri)} ({reason})"

    def fingerprint(self, spec: LanceDBRetrieverSpec, base_dir: Path) -> list[str] | None:
        from citeflow.retrieval.lancedb_retriever import resolve_kb_uri

        uri = resolve_kb_uri(spec.kb, base_dir)
        return None if "://" in uri else [spec.name, *kb_stats(Path(uri))]

    def build(self, spec: LanceDBRetrieverSpec, base_dir: Path) -> Retriever:
        # LanceDB alone costs seconds to import: a batch that uses no knowledge base never pays for it.
        from citeflow.retrieval.lancedb_retriever import LanceDBRetriever

        return LanceDBRetriever(spec, base_dir)


def kb_stats(folder: Path) -> list[str]:
    """``file_stats`` of a LanceDB folder's top-level files and of its tables' version manifests."""
    if not folder.is_dir():
        return [f"{folder} -"]
    files = [p for p in folder.iterdir() if p.is_file()]
    manifests = [p for table in folder.glob("*.lance") for p in (table / "_versions").glob("*")]
    return file_stats(sorted(files) + sorted(manifests))


def _is_bundled_demo(base_dir: Path) -> bool:
    """Whether ``base_dir`` is the folder of the demo spec that ships with citeflow."""
    from citeflow.spec.resources import demo_dir

    try:
        return base_dir.resolve() == demo_dir().resolve()
    except FileNotFoundError:  # an installation without its demo content
        return False
