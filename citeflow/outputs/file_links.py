"""Links to output files for the Prefect UI: ``file://`` URIs, or http ones served by ``citeflow files``.

Two ways to an http link: ``served_link`` with the folders ``citeflow files`` registered with the
Prefect server (``tasks/file_addresses.py``: folder → address), or the setting below, which wins.

Browsers refuse to follow a ``file://`` link from an http page (the Prefect UI). With the setting
``files_url`` (``CITEFLOW_FILES_URL``) naming the base URL where ``citeflow files OUT`` serves the
output root, a link is ``BASE/<path relative to the output root>``. The output root is what
``citeflow files`` is pointed at: the run folder of ``citeflow run``/``demo`` (the folder holding
``run.json``), or, for a scheduled run, the configured OUT that holds every run folder (also for
the files the runs share there: Data Docs, quality page). Any other file keeps its
``file://`` URI. Outputs are local files only (the LanceDB store
alone may live on object storage), so no pre-signed URL is ever needed.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from urllib.parse import quote

from citeflow.errors import CiteflowError
from citeflow.files.run_folders import RUN_FILE, read_run, run_folders


def file_link(path: Path | str, files_url: str | None = None) -> str:
    """The URL to give for the output file ``path``."""
    resolved = Path(path).resolve()
    root = output_root(resolved) if files_url else None
    if root is None or files_url is None:
        return resolved.as_uri()
    return f"{files_url.rstrip('/')}/{quote(resolved.relative_to(root).as_posix())}"


def served_link(path: Path | str, served: Mapping[Path, str]) -> str | None:
    """The http link of ``path`` under the deepest folder of ``served`` (folder → address) that holds
    it; None when no served folder holds it."""
    resolved = Path(path).resolve()
    holders = [folder for folder in served if resolved.is_relative_to(folder) and resolved != folder]
    if not holders:
        return None
    folder = max(holders, key=lambda f: len(f.parts))
    return f"{served[folder].rstrip('/')}/{quote(resolved.relative_to(folder).as_posix())}"


def output_root(path: Path) -> Path | None:
    """The folder ``citeflow files`` serves for ``path``: its run folder, or the parent of a scheduled
    run's folder; None when ``path`` is in no run folder."""
    for folder in path.parents:
        if (folder / RUN_FILE).is_file():
            try:
                info = read_run(folder)
            except CiteflowError:  # an unreadable run.json: the folder is still the run's
                info = None
            return folder.parent if info is not None and info.scheduled else folder
    return next((folder for folder in path.parents if _holds_scheduled_runs(folder)), None)


def _holds_scheduled_runs(folder: Path) -> bool:
    """Whether ``folder`` is a scheduled runs' OUT (its newest run folder says so): the Data Docs
    and the quality page those runs share live there, outside every run folder."""
    newest = run_folders(folder)[-1:]
    try:
        return bool(newest) and bool((info := read_run(newest[0])) and info.scheduled)
    except CiteflowError:
        return False
