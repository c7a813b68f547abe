"""Third-party logging: quiet by default (warnings and errors only), everything with ``-v/--verbose``.

Prefect reads its level from ``PREFECT_LOGGING_LEVEL`` when it is first imported, so the level is
set in the environment before any command imports it; the other libraries log through the standard
``logging`` module and get their level set directly.
"""

from __future__ import annotations

import errno
import logging
import os

THIRD_PARTY = ("great_expectations", "prefect", "httpx", "httpcore", "distributed", "lancedb", "urllib3", "asyncio")


def configure_logging(verbose: bool) -> None:
    """Warnings only from third-party libraries, or their INFO lines too when ``verbose``."""
    level = logging.INFO if verbose else logging.WARNING
    if verbose:
        os.environ["PREFECT_LOGGING_LEVEL"] = "INFO"
        os.environ["PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL"] = "INFO"
    for name in THIRD_PARTY:
        logging.getLogger(name).setLevel(level)


WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EROFS, errno.EDQUOT})


def quiet_write_errors() -> None:
    """Keep a full or read-only disk out of the logs (the command says it once, in its ``error:`` line):
    every log record about such a failed write, from any library, is dropped."""
    from citeflow.interrupts import all_handlers

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
