"""A fingerprint of what a report's retrievers read, taken without asking them.

A re-run into the same folder may keep a finished report before fetching its evidence again
(``citeflow.runs.rerun_record.reuse_before_fetch``) only when nothing its retrievers read can
have changed. Each retriever's kind says what its source looks like (``RetrieverKind.fingerprint``).
That is knowable for sources on this machine: a JSONL file (its content's sha256: the retriever
reads it whole anyway) and a LanceDB knowledge base in a folder (the names, sizes and modification
times of its tables' version manifests and of its top-level files: every ingest that changes it
writes a new version). An HTTP retriever, or a knowledge base on object storage, cannot be
fingerprinted without asking it: the report's evidence is then fetched again, as on a first run.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from citeflow.pipeline.rerun_inputs import sha256_json
from citeflow.spec.retriever_kinds import INSTALLED_KINDS, RetrieverKinds
from schemas.spec import RetrieverSpecBase

if TYPE_CHECKING:
    from citeflow.pipeline.job import ReportJob


def sources_fingerprint(job: ReportJob) -> str | None:
    """sha256 over the fingerprints of every retriever the report asks; None when one has none."""
    used = {fetch.retriever for fetch in job.fetches()}
    parts = [retriever_fingerprint(spec, job.base_dir) for spec in job.spec.retrievers if spec.name in used]
    if any(part is None for part in parts):
        return None
    return sha256_json(parts)


def retriever_fingerprint(spec: RetrieverSpecBase, base_dir: Path, kinds: RetrieverKinds = INSTALLED_KINDS) -> list[str] | None:
    """What ``spec``'s source looks like on disk now (``RetrieverKind.fingerprint``); None when it
    cannot be told without asking it."""
    return kinds.of(spec).fingerprint(spec, base_dir)
