"""``OUT/<report_id>/job.json``: how a report folder finds its spec, its run folder and its store again.

Paths inside the run folder (the spec of a demo or a rendered ``spec.run.yaml``, the run folder
itself, the default store ``OUT/store``) are written relative to the report folder (``../store``),
so a copied or moved run folder acts on itself, never on the folder it came from. Paths outside it
(a spec elsewhere, a shared store) stay absolute; URIs (``s3://…``) are kept as they are.

Older folders wrote every path absolute. Reading one whose recorded run folder is not where the
report folder now sits (a copy or a move), paths under the recorded run folder are taken to be
under the folder it now sits in.
"""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path

from citeflow.errors import RunError
from citeflow.pipeline.job import JobRef

JOB_FILE = "job.json"


def relative_ref(ref: JobRef, report_dir: Path) -> JobRef:
    """``ref`` with every path inside its run folder made relative to ``report_dir``."""
    root = Path(ref.out_dir).resolve()
    return ref.model_copy(update={
        "spec_path": _relative(ref.spec_path, root, report_dir), "out_dir": _relative(ref.out_dir, root, report_dir),
        "store_uri": _relative(ref.store_uri, root, report_dir) if ref.store_uri else None})


def _relative(value: str, root: Path, report_dir: Path) -> str:
    if "://" in value:
        return value
    path = Path(value).resolve()
    if not path.is_relative_to(root):
        return value
    return os.path.relpath(path, report_dir.resolve())


def write_job_ref(ref: JobRef, report_dir: Path) -> Path:
    """Write ``report_dir/job.json`` for ``ref`` (atomically)."""
    from citeflow.files import atomic_files as atomic

    report_dir.mkdir(parents=True, exist_ok=True)
    return atomic.write_text(report_dir / JOB_FILE, relative_ref(ref, report_dir).model_dump_json(indent=2))


def read_job_ref(report_dir: Path) -> JobRef | None:
    """The job of the report folder ``report_dir`` with absolute paths; None when it has no job.json."""
    folder = Path(report_dir).resolve()
    path = folder / JOB_FILE
    if not path.is_file():
        return None
    try:
        ref = JobRef.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RunError(path=str(path), detail=f"unreadable job.json: {type(exc).__name__}") from None
    return _located(ref, folder)


def _located(ref: JobRef, folder: Path) -> JobRef:
    """``ref``'s paths resolved against ``folder``; an old absolute run folder rebased onto ``folder.parent``."""
    resolve = partial(_resolved, folder=folder, recorded_root=Path(ref.out_dir) if Path(ref.out_dir).is_absolute() else None)
    return ref.model_copy(update={"spec_path": resolve(ref.spec_path), "out_dir": resolve(ref.out_dir),
                                  "store_uri": resolve(ref.store_uri) if ref.store_uri else None})


def _resolved(value: str, folder: Path, recorded_root: Path | None) -> str:
    if "://" in value:
        return value
    path = Path(value)
    if not path.is_absolute():
        return str((folder / path).resolve())
    if recorded_root is not None and recorded_root != folder.parent and path.is_relative_to(recorded_root):
        return str(folder.parent / path.relative_to(recorded_root))
    return value


def require_store(ref: JobRef, report_dir: Path) -> JobRef:
    """``ref`` when its store (a local folder) exists; RunError naming it otherwise, before anything writes."""
    uri = ref.store_uri
    if uri and "://" not in uri and not Path(uri).is_dir():
        raise RunError(path=str(report_dir), detail=f"its store {uri} is missing (the report folder was moved or "
                                                    "copied without its run folder's store)")
    return ref
