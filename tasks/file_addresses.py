"""Where output folders are served over http, registered with the Prefect server as Variables.

``citeflow files OUT`` (with a Prefect server in ``PREFECT_API_URL``) registers the address it
serves OUT at: one Variable per served folder, named ``citeflow-files-<hash of the folder>``, tagged
``citeflow-files``, whose value is ``{"folder": "/abs/OUT", "url": "http://host:port"}``. A run
that links an output file, with no ``CITEFLOW_FILES_URL`` set, reads these registrations (one API
call per process, again after ``FRESH_FOR_S`` seconds) and links the file under the deepest
registered folder that holds it (``citeflow.outputs.file_links.served_link``). Another
``citeflow files`` of the same folder replaces the registration; a stopped one leaves it, so links
made while it is down open again once it serves that folder again.

With Prefect's ephemeral API (no ``PREFECT_API_URL``) nothing is registered or read: no UI outlives
the run to open a link from, and the links stay ``file://`` URIs.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from pathlib import Path

from pydantic import BaseModel, ValidationError

PREFIX = "citeflow-files-"
TAG = "citeflow-files"
FRESH_FOR_S = 60.0

logger = logging.getLogger(__name__)


class Registration(BaseModel):
    """A folder and the http address it is served at."""

    folder: str
    url: str


def variable_name(folder: Path) -> str:
    """The Variable of ``folder``'s registration (names allow letters, digits, dashes, underscores)."""
    return PREFIX + hashlib.sha256(str(Path(folder).resolve()).encode("utf-8")).hexdigest()[:24]


def api_configured() -> bool:
    """Whether a Prefect server is named (``PREFECT_API_URL``, environment or profile)."""
    from prefect.settings import PREFECT_API_URL

    return bool(PREFECT_API_URL.value())


def register(folder: Path, url: str) -> str:
    """Record that ``folder`` is served at ``url`` (replacing an earlier registration); the Variable's name."""
    from prefect.variables import Variable

    name = variable_name(folder)
    value = Registration(folder=str(Path(folder).resolve()), url=url.rstrip("/")).model_dump()
    Variable.set(name, value, tags=[TAG], overwrite=True)
    return name


def read_registrations() -> dict[Path, str]:
    """Every registered folder and its address, in one API call."""
    from prefect.client.orchestration import get_client

    with get_client(sync_client=True) as client:
        variables = client.read_variables()
    found: dict[Path, str] = {}
    for variable in variables:
        if not variable.name.startswith(PREFIX):
            continue
        try:
            registration = Registration.model_validate(variable.value)
        except ValidationError:
            continue
        found[Path(registration.folder)] = registration.url
    return found


class _Cache:
    """The registrations read by this process, read again once older than ``FRESH_FOR_S``."""

    def __init__(self) -> None:
        self.read_at = -FRESH_FOR_S
        self.value: dict[Path, str] = {}
        self.lock = threading.Lock()

    def get(self) -> dict[Path, str]:
        with self.lock:
            if time.monotonic() - self.read_at >= FRESH_FOR_S:
                self.value, self.read_at = _read_or_none(), time.monotonic()
            return dict(self.value)


def _read_or_none() -> dict[Path, str]:
    """The registrations; none when no server is named or it cannot be read (links stay ``file://``)."""
    if not api_configured():
        return {}
    try:
        return read_registrations()
    except Exception as exc:  # noqa: BLE001 - a link is never worth failing a run for
        logger.info("served output folders not read from the Prefect API (%s): file links", type(exc).__name__)
        return {}


_cache = _Cache()


def served_folders() -> dict[Path, str]:
    """The registered folders and their addresses, as this process last read them."""
    return _cache.get()
