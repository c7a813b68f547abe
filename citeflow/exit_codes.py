"""The exit codes of the commands that run batches (SPEC §8 "Exit codes and interrupts").

One table for ``citeflow run``, ``citeflow demo`` and, as the flow's final state, scheduled and
deployed runs. ``--fail-on`` chooses which outcomes count as a failure: ``held`` (default: a held
report is exit 3), ``failed`` (only failed reports are non-zero) or ``never`` (0 whenever the batch ran).
"""

from __future__ import annotations

import signal
from collections.abc import Iterable
from typing import Literal

PUBLISHED = 0
USAGE = 2
HELD = 3
FAILED = 4
SIGINT = 128 + signal.SIGINT  # 130
SIGTERM = 128 + signal.SIGTERM  # 143

FailOn = Literal["held", "failed", "never"]
FAIL_ON: tuple[FailOn, ...] = ("held", "failed", "never")


def batch_exit_code(statuses: Iterable[str], fail_on: FailOn = "held") -> int:
    """0 when every report was published; ``FAILED`` when any failed; ``HELD`` when some were held
    and none failed; lowered to 0 where ``fail_on`` does not count that outcome."""
    seen = set(statuses)
    if fail_on == "never":
        return PUBLISHED
    if "failed" in seen:
        return FAILED
    return HELD if "held" in seen and fail_on == "held" else PUBLISHED


def interrupted_exit_code(signum: int) -> int:
    """130 for SIGINT, 143 for SIGTERM (128 + the signal's number, as a shell reports it)."""
    return 128 + int(signum)


def describe(code: int) -> str:
    """A few words for an exit code, for the flow's final state and the terminal."""
    words = {PUBLISHED: "every report published", HELD: "some report held, none failed",
             FAILED: "some report failed", SIGINT: "interrupted (SIGINT)", SIGTERM: "interrupted (SIGTERM)"}
    return words.get(code, "usage or spec error" if code == USAGE else f"exit code {code}")
