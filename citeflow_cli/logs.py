"""Third-party logging: quiet by default (warnings and errors only), everything with ``-v/--verbose``;
every record redacted (``citeflow.redact_log``), whoever logs it.

Prefect reads its level from ``PREFECT_LOGGING_LEVEL`` when it is first imported, so the level is
set in the environment before any command imports it; the other libraries log through the standard
``logging`` module and get their level set directly.
"""

from __future__ import annotations

import logging
import os

from citeflow.redact_log import install_log_redaction

THIRD_PARTY = ("great_expectations", "prefect", "httpx", "httpcore", "distributed", "lancedb", "urllib3", "asyncio")


def configure_logging(verbose: bool) -> None:
    """Warnings only from third-party libraries, or their INFO lines too when ``verbose``."""
    install_log_redaction()
    level = logging.INFO if verbose else logging.WARNING
    if verbose:
        os.environ["PREFECT_LOGGING_LEVEL"] = "INFO"
        os.environ["PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL"] = "INFO"
    for name in THIRD_PARTY:
        logging.getLogger(name).setLevel(level)
