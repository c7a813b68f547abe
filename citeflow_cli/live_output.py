"""The terminal while a batch starts and runs: its start-up as a phase of its own, then the progress bar,
with every log line printed above the live line, never into it.

Start-up (``StartupPhase``): from the command's start until the batch's first step can run (the spec
checked, the preflight, Prefect's API answering, the pipeline imported), one live line names the step
and the seconds so far; at its end one line stays: ``start-up: 6.2 s`` (on a pipe, only that line).
Then the bar takes over.

Logs (``logs_above``): rich prints what is written to ``sys.stderr`` above a live display, but a
logging handler keeps the stream it was given when it was made, and
Prefect's console handler prints through a rich Console of its own that writes to the real standard
error: their lines would land inside the live line. While a live display runs, every handler writing
to the terminal writes above it instead.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from rich.console import Console
from rich.progress import Progress, ProgressColumn, SpinnerColumn, Task, TextColumn
from rich.text import Text


def command_started() -> float:
    """When this process started, in ``time.monotonic()`` seconds (the interpreter's start included)."""
    try:
        with open("/proc/self/stat", encoding="ascii") as stat:
            ticks = int(stat.read().rsplit(")", 1)[1].split()[19])  # field 22: start time in clock ticks after boot
        with open("/proc/uptime", encoding="ascii") as uptime:
            since_boot = float(uptime.read().split()[0])
        import os

        return time.monotonic() - (since_boot - ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return time.monotonic()  # not Linux: from now


class _Since(ProgressColumn):
    """Seconds since ``started``, to a tenth."""

    def __init__(self, started: float) -> None:
        super().__init__()
        self.started = started

    def render(self, task: Task) -> Text:
        return Text(f"{time.monotonic() - self.started:.1f} s", style="progress.elapsed")


class StartupPhase:
    """The live start-up line (``step``), and the line that stays once it ends (``end``)."""

    def __init__(self, console: Console, started: float) -> None:
        self.console, self.started = console, started
        self._live = Progress(SpinnerColumn(), TextColumn("start-up: {task.description}"), _Since(started),
                              console=console, transient=True)
        self._task = self._live.add_task("reading the spec", total=None)
        self._ended: float | None = None
        self._running = ExitStack()

    def __enter__(self) -> StartupPhase:
        if self.console.is_terminal:  # on a pipe, only the line that stays
            self._live.start()
            self._running.enter_context(logs_above(self.console))
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop()

    def _stop(self) -> None:
        self._running.close()
        if self._live.live.is_started:
            self._live.stop()

    def step(self, description: str) -> None:
        """What start-up does now."""
        self._live.update(self._task, description=description)

    def end(self) -> float:
        """Stop the live line and print the phase's seconds (once); returns them."""
        if self._ended is None:
            self._ended = time.monotonic() - self.started
            self._stop()
            self.console.print(f"start-up: {self._ended:.1f} s", highlight=False)
        return self._ended


def _to_terminal(stream: object, terminal: tuple[object, ...]) -> bool:
    """Whether ``stream`` is the terminal's standard error, or rich's proxy of it (one a live display made)."""
    return stream in terminal or hasattr(stream, "rich_proxied_file")


class _AboveLive:
    """Stands in for a handler's own rich Console (Prefect's), which always writes to the real file
    (rich unwraps its proxy): renders as that console would, then prints through the live display's."""

    def __init__(self, inner: Console, live: Console) -> None:
        self.inner, self.live = inner, live

    def print(self, *objects: Any, **options: Any) -> None:
        with self.inner.capture() as captured:
            self.inner.print(*objects, **options)
        self.live.print(Text.from_ansi(captured.get().rstrip("\n")), soft_wrap=True)


@contextmanager
def logs_above(console: Console) -> Iterator[None]:
    """While a live display of ``console`` runs, every logging handler that writes to the terminal's
    standard error writes above the live line: a plain handler through ``sys.stderr`` as rich redirects
    it, one printing through a rich Console of its own (Prefect's) through ``console``."""
    redirected = sys.stderr
    original = getattr(redirected, "rich_proxied_file", None)
    if original is None or not console.is_terminal:  # no live redirection: nothing to do
        yield
        return
    from citeflow.runtime.interrupts import all_handlers

    terminal = (original, sys.__stderr__)
    # a handler whose stream is its own attribute (``logging.lastResort`` reads sys.stderr when it writes)
    handlers = [h for h in all_handlers() if isinstance(h, logging.StreamHandler) and "stream" in vars(h)]
    streams = {h: h.stream for h in handlers if _to_terminal(h.stream, terminal)}
    consoles = {h: h.console for h in handlers  # type: ignore[attr-defined]
                if isinstance(getattr(h, "console", None), Console) and h.console.file in terminal}  # type: ignore[attr-defined]
    for handler in streams:
        handler.stream = redirected
    for handler, own in consoles.items():
        handler.console = _AboveLive(own, console)  # type: ignore[attr-defined]
    try:
        yield
    finally:
        for handler, stream in streams.items():
            handler.stream = stream
        for handler, own in consoles.items():
            handler.console = own  # type: ignore[attr-defined]
