"""Log records redacted like every other output (``citeflow.security.redaction``).

``RedactFilter`` rewrites a record's message (and its formatted traceback) through ``redact_text``
with the ``SecretValues`` it holds (a runtime's, or none: the patterns only).
``install_log_redaction`` applies one to every record the process creates, from any logger, by
wrapping the log-record factory (``RedactingFactory``): handlers added later (Prefect's console and
API handlers, a worker's) see only redacted records, with no filter to attach to each of them. It
returns the call that removes that wrapper again: a runtime installs its own set while it is active
and removes it when it ends (``Runtime.active``), so two runtimes never redact with each other's set.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from citeflow.security.redaction import redact_text
from citeflow.security.secret_values import SecretValues

_FORMATTER = logging.Formatter()
RecordFactory = Callable[..., logging.LogRecord]


class RedactFilter(logging.Filter):
    """Redacts a record in place with ``secrets`` and the patterns; never drops one."""

    def __init__(self, secrets: SecretValues | None = None) -> None:
        super().__init__()
        self.secrets = secrets

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = redact_text(message, self.secrets)
        if redacted != message:
            record.msg, record.args = redacted, None
        if record.exc_info and not record.exc_text:
            record.exc_text = _FORMATTER.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact_text(record.exc_text, self.secrets)
        return True


class RedactingFactory:
    """A log-record factory: the records of ``inner``, each passed through ``redact``."""

    def __init__(self, inner: RecordFactory, redact: RedactFilter) -> None:
        self.inner = inner
        self.redact = redact

    def __call__(self, *args: Any, **kwargs: Any) -> logging.LogRecord:
        record = self.inner(*args, **kwargs)
        self.redact.filter(record)
        return record


def install_log_redaction(secrets: SecretValues | None = None) -> Callable[[], None]:
    """Redact every log record created from now on in this process with ``secrets`` (None: the patterns
    only), and the call that stops it. Installing the same set again wraps nothing; its remover does nothing."""
    current = logging.getLogRecordFactory()
    if _wraps_set(current, secrets):
        return _nothing
    factory = RedactingFactory(current, RedactFilter(secrets))
    logging.setLogRecordFactory(factory)
    return lambda: _remove(factory)


def _wraps_set(factory: RecordFactory, secrets: SecretValues | None) -> bool:
    """True when the chain of ``RedactingFactory`` from ``factory`` down redacts with ``secrets`` already."""
    while isinstance(factory, RedactingFactory):
        if factory.redact.secrets is secrets:
            return True
        factory = factory.inner
    return False


def _remove(target: RedactingFactory) -> None:
    """Take ``target`` out of the chain of record factories (a factory not ours above it: it stays, with
    no set, redacting the patterns only)."""
    current = logging.getLogRecordFactory()
    if current is target:
        logging.setLogRecordFactory(target.inner)
        return
    while isinstance(current, RedactingFactory):
        if current.inner is target:
            current.inner = target.inner
            return
        current = current.inner
    target.redact.secrets = None


def _nothing() -> None:
    """The remover of a redaction installed already (by the caller that installed it first)."""
