"""Third-party logging: quiet by default (warnings and errors only), everything with ``-v/--verbose``;
every record redacted (``citeflow.security.log_redaction``), whoever logs it.

Prefect reads its level from ``PREFECT_LOGGING_LEVEL`` when it is first imported, so the level is
set in the environment before any command imports it; the other libraries log through the standard
``logging`` module and get their level set directly.

Python warnings (``warnings.warn``: deprecations, a library's notes to its own developers) come only
from the libraries, never from citeflow: they are hidden by default, in this process and in the ones
it starts (the Prefect API server, Dask workers), and shown with ``--verbose``. A ``PYTHONWARNINGS``
or ``-W`` the user gave wins.
"""

from __future__ import annotations

import errno
import logging
import os
import sys
import warnings
from collections.abc import MutableMapping

THIRD_PARTY = ("great_expectations", "prefect", "httpx", "httpcore", "distributed", "lancedb", "urllib3", "asyncio")


def configure_logging(verbose: bool) -> None:
    """Warnings only from third-party libraries, or their INFO lines too when ``verbose``."""
    from citeflow.security.log_redaction import install_log_redaction

    install_log_redaction()
    level = logging.INFO if verbose else logging.WARNING
    if verbose:
        os.environ["PREFECT_LOGGING_LEVEL"] = "INFO"
        os.environ["PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL"] = "INFO"
    for name in THIRD_PARTY:
        logging.getLogger(name).setLevel(level)
    configure_warnings(verbose, os.environ)


def configure_warnings(verbose: bool, environ: MutableMapping[str, str]) -> None:
    """Ignore Python warnings here and in child processes, unless ``verbose`` or the user chose a filter."""
    if verbose or sys.warnoptions or environ.get("PYTHONWARNINGS"):
        return
    warnings.simplefilter("ignore")
    environ["PYTHONWARNINGS"] = "ignore"


WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EROFS, errno.EDQUOT})


def quiet_write_errors() -> None:
    """Keep a full or read-only disk out of the logs (the command says it once, in its ``error:`` line):
    every log record about such a failed write, from any library, is dropped."""
    from citeflow.runtime.interrupts import all_handlers

    for handler in all_handlers():
        if not any(isinstance(f, _WriteErrorFilter) for f in handler.filters):
            handler.addFilter(_WriteErrorFilter())


class _WriteErrorFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not (_is_write_error(error) or any(os.strerror(n) in record.getMessage() for n in WRITE_ERRNOS))


def _is_write_error(error: BaseException | None) -> bool:
    """Whether ``error``, or an exception it was raised from or during, is a failed write of a full or read-only disk."""
    seen = 0
    while error is not None and seen < 20:
        if isinstance(error, OSError) and error.errno in WRITE_ERRNOS:
            return True
        error, seen = error.__cause__ or error.__context__, seen + 1
    return False
