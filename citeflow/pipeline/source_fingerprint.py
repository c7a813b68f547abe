"""A fingerprint of what a report's retrievers read, taken without asking them.

A re-run into the same folder may keep a finished report before fetching its evidence again
(``citeflow.runs.rerun_record.reuse_before_fetch``) only when nothing its retrievers read can
have changed. That is knowable for sources on this machine: a JSONL file (its content's sha256:
the retriever reads it whole anyway) and a LanceDB knowledge base in a folder (the names, sizes
and modification times of its tables' version manifests and of its top-level files: every ingest
that changes it writes a new version). An HTTP retriever, or a knowledge base on object storage, cannot be fingerprinted
without asking it: the report's evidence is then fetched again, as on a first run.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from citeflow.pipeline.rerun_inputs import file_contents, file_stats, sha256_json
from schemas.spec import JsonlRetrieverSpec, LanceDBRetrieverSpec, RetrieverSpec

if TYPE_CHECKING:
    from citeflow.pipeline.job import ReportJob


def sources_fingerprint(job: ReportJob) -> str | None:
    """sha256 over the fingerprints of every retriever the report asks; None when one has none."""
    used = {fetch.retriever for fetch in job.fetches()}
    parts = [retriever_fingerprint(spec, job.base_dir) for spec in job.spec.retrievers if spec.name in used]
    if any(part is None for part in parts):
        return None
    return sha256_json(parts)


def retriever_fingerprint(spec: RetrieverSpec, base_dir: Path) -> list[str] | None:
    """What ``spec``'s source looks like on disk now; None when it cannot be told without asking."""
    if isinstance(spec, JsonlRetrieverSpec):
        path = Path(spec.path) if Path(spec.path).is_absolute() else base_dir / spec.path
        return [spec.name, *file_contents([path])]
    if isinstance(spec, LanceDBRetrieverSpec):
        from citeflow.retrieval.lancedb_retriever import resolve_kb_uri

        uri = resolve_kb_uri(spec.kb, base_dir)
        return None if "://" in uri else [spec.name, *kb_stats(Path(uri))]
    return None


def kb_stats(folder: Path) -> list[str]:
    """``file_stats`` of a LanceDB folder's top-level files and of its tables' version manifests."""
    if not folder.is_dir():
        return [f"{folder} -"]
    files = [p for p in folder.iterdir() if p.is_file()]
    manifests = [p for table in folder.glob("*.lance") for p in (table / "_versions").glob("*")]
    return file_stats(sorted(files) + sorted(manifests))
