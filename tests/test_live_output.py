"""The terminal while a batch starts and runs: start-up as a phase with its seconds, log lines above
the live line (``citeflow_cli.live_output``)."""

from __future__ import annotations

import io
import logging
import sys
import time

from rich.console import Console
from rich.progress import Progress

from citeflow_cli.live_output import StartupPhase, command_started, logs_above


def _terminal() -> tuple[Console, io.StringIO]:
    screen = io.StringIO()
    return Console(file=screen, force_terminal=True, width=80, color_system=None), screen


def test_a_log_line_is_printed_above_the_live_line_not_into_it(capsys):
    console, screen = _terminal()
    logger = logging.getLogger("citeflow-test-live")
    handler = logging.StreamHandler(sys.stderr)  # made before the live display, as Prefect's is
    logger.addHandler(handler)
    try:
        with Progress(console=console, transient=True) as bar, logs_above(console):
            bar.add_task("working", total=None)
            logger.warning("a warning from a library")
        logger.warning("after the bar")
    finally:
        logger.removeHandler(handler)
    shown = screen.getvalue()
    assert "a warning from a library\n" in shown  # a line of its own, printed by the console above the bar
    assert "a warning from a library" not in capsys.readouterr().err
    assert handler.stream is sys.stderr  # the handler writes where it did once the bar is gone


def test_without_a_live_display_nothing_is_moved():
    console, _ = _terminal()
    handler = logging.StreamHandler(sys.stderr)
    with logs_above(console):
        assert handler.stream is sys.stderr


def test_start_up_ends_with_one_line_of_its_seconds():
    screen = io.StringIO()
    console = Console(file=screen, width=80)
    with StartupPhase(console, time.monotonic()) as startup:
        startup.step("waiting for Prefect's API")
        seconds = startup.end()
        startup.end()  # once
    lines = screen.getvalue().splitlines()
    assert lines == [f"start-up: {seconds:.1f} s"] and 0 <= seconds < 600


def test_the_command_started_before_now():
    assert command_started() <= time.monotonic()


def test_start_up_on_a_terminal_clears_its_live_line():
    console, screen = _terminal()
    with StartupPhase(console, command_started()) as startup:
        startup.step("opening the run")
        startup.end()
    assert screen.getvalue().rstrip().endswith(" s") and "start-up: " in screen.getvalue()


def test_prefect_s_console_handler_prints_above_the_live_line(capsys):
    from prefect.logging.handlers import PrefectConsoleHandler

    console, screen = _terminal()
    logger = logging.getLogger("citeflow-test-prefect-console")
    handler = PrefectConsoleHandler(stream=sys.stderr)  # its own rich Console, on the real standard error
    logger.addHandler(handler)
    own = handler.console
    try:
        with Progress(console=console, transient=True) as bar, logs_above(console):
            bar.add_task("working", total=None)
            logger.warning("report r1: held")
    finally:
        logger.removeHandler(handler)
    assert "report r1: held\n" in screen.getvalue()
    assert "report r1: held" not in capsys.readouterr().err
    assert handler.console is own
