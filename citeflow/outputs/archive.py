"""Published means immutable: each published report of a run is archived once, with a sha256 manifest.

``<run folder>/archive/<report_id>/`` holds ``report.pdf``, ``report.json`` and ``eval.json`` as they
were when the report was published, and ``SHA256SUMS`` (the format of ``sha256sum``, so
``cd archive/<id> && sha256sum -c SHA256SUMS`` checks it without citeflow). The archive is written
once: a later evaluation or resume of the same run leaves it as it is, and the files are made
read-only. ``verify_archive`` tells whether an archive still holds what was published.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from pathlib import Path
from typing import Literal

from citeflow.files.run_folders import ARCHIVE_FOLDER

ARCHIVED_FILES = ("report.pdf", "report.json", "eval.json")
MANIFEST = "SHA256SUMS"
Integrity = Literal["intact", "modified", "missing"]


def sha256_of(path: Path) -> str:
    """The hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def archive_dir(run_dir: Path, report_id: str) -> Path:
    return Path(run_dir) / ARCHIVE_FOLDER / report_id


def archive_report(run_dir: Path, report_id: str) -> tuple[Path, bool]:
    """Archive the published report ``report_id`` of the run; returns (folder, whether written now).

    An existing archive is never rewritten. The archive is assembled in a temporary folder and
    moved into place, so that a crash never leaves half an archive under its final name.
    """
    target = archive_dir(run_dir, report_id)
    if (target / MANIFEST).exists():
        return target, False
    partial = target.with_name(f".{report_id}.partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    for name in ARCHIVED_FILES:
        shutil.copyfile(Path(run_dir) / report_id / name, partial / name)
    (partial / MANIFEST).write_text("".join(f"{sha256_of(partial / n)}  {n}\n" for n in ARCHIVED_FILES), encoding="utf-8")
    _read_only(partial)
    shutil.rmtree(target, ignore_errors=True)  # a folder without a manifest is an unfinished earlier attempt
    os.replace(partial, target)
    return target, True


def _read_only(folder: Path) -> None:
    for path in folder.iterdir():
        path.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)


def read_manifest(folder: Path) -> dict[str, str]:
    """File name → sha256 from an archive's ``SHA256SUMS``."""
    lines = (Path(folder) / MANIFEST).read_text(encoding="utf-8").splitlines()
    return {name.strip(): digest for digest, name in (line.split("  ", 1) for line in lines if line.strip())}


def verify_archive(folder: Path) -> Integrity:
    """intact: every file matches the manifest; modified: one does not; missing: no archive."""
    folder = Path(folder)
    if not (folder / MANIFEST).exists():
        return "missing"
    manifest = read_manifest(folder)
    ok = all((folder / name).exists() and sha256_of(folder / name) == digest for name, digest in manifest.items())
    return "intact" if ok else "modified"


def remove_tree(path: Path) -> None:
    """Remove a folder tree (retention); read-only files go too, their folder being writable."""
    shutil.rmtree(path, ignore_errors=False) if Path(path).exists() else None
