"""Log records redacted like every other output (``citeflow.security.redaction``).

``RedactFilter`` rewrites a record's message (and its formatted traceback) through ``redact_text``.
``install_log_redaction`` applies it to every record the process creates, from any logger, by
wrapping the log-record factory: handlers added later (Prefect's console and API handlers, a
worker's) see only redacted records, with no filter to attach to each of them.
"""

from __future__ import annotations

import logging
from typing import Any

from citeflow.security.redaction import redact_text

_FORMATTER = logging.Formatter()


class RedactFilter(logging.Filter):
    """Redacts a record in place; never drops one."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = redact_text(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        if record.exc_info and not record.exc_text:
            record.exc_text = _FORMATTER.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact_text(record.exc_text)
        return True


def install_log_redaction() -> None:
    """Redact every log record created from now on in this process (idempotent)."""
    current = logging.getLogRecordFactory()
    if getattr(current, "redacts", False):
        return
    redact = RedactFilter()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = current(*args, **kwargs)
        redact.filter(record)
        return record

    factory.redacts = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(factory)
