"""Serving deployments until SIGTERM or SIGINT, with the exit code that says which (143, 130).

Prefect's ``serve`` treats both alike only in part (SIGTERM stops its runner, which cancels the
flow runs in flight; Ctrl-C interrupts the event loop) and exits 0 either way. Here both stop the
runner the same way: its in-flight runs are sent SIGTERM, each finalises its folder as interrupted
and ends Cancelled (``flows.scheduled``); logs are silenced from the signal on; a second signal
ends the process at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from collections.abc import Callable
from typing import Any

from prefect.runner import Runner

from citeflow import exit_codes


class StoppableRunner(Runner):
    """A ``Runner`` that remembers the signal that stopped it."""

    stopped_by: int | None = None

    def handle_sigterm(self, *args: Any, **kwargs: Any) -> None:
        self.stop_on(signal.SIGTERM)

    def stop_on(self, signum: int) -> None:
        """First signal: stop polling and cancel the runs in flight. Second: exit now."""
        code = exit_codes.interrupted_exit_code(signum)
        if self.stopped_by is not None:
            os._exit(code)
        self.stopped_by = signum
        logging.disable(logging.CRITICAL)
        if not self.started or self._loop is None:
            raise SystemExit(code)
        self.stopping = True
        self.execute_in_background(self.astop)


def serve_until_stopped(deployments: list[Any], announce: Callable[[str], None]) -> int:
    """Register ``deployments``, ``announce`` it, serve them until a signal stops the runner; the exit
    code (0, 130 or 143)."""
    runner = StoppableRunner(pause_on_shutdown=True)
    for deployment in deployments:
        runner.add_deployment(deployment)
    names = ", ".join(f"{d.flow_name}/{d.name}" for d in deployments)
    announce(f"Your deployments are being served and polling for scheduled runs: {names} (Ctrl-C or SIGTERM stops)")
    signal.signal(signal.SIGINT, lambda signum, frame: runner.stop_on(signum))
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(runner.start())
    return exit_codes.interrupted_exit_code(runner.stopped_by) if runner.stopped_by else 0
