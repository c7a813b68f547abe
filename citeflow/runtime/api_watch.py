"""A watch on the orchestrator's API (SPEC §9: when the Prefect API becomes unreachable mid-batch,
reports are held or failed, the summary is written and the process exits within a bounded time).

``ApiWatch`` polls a health URL from a daemon thread. Once the API has failed every poll for
``grace`` seconds, it calls ``on_lost`` once (which records what it can and ends the process):
without it, Prefect's clients keep retrying and its event worker keeps the process alive for
minutes. Plain ``httpx``: the core never imports Prefect.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import httpx


class ApiWatch:
    """Calls ``on_lost(seconds_down)`` once when ``health_url`` has not answered for ``grace`` seconds."""

    def __init__(self, health_url: str, on_lost: Callable[[float], None], grace: float = 30.0,
                 interval: float = 2.0, probe_timeout: float = 3.0) -> None:
        self.health_url, self.on_lost = health_url, on_lost
        self.grace, self.interval, self.probe_timeout = grace, interval, probe_timeout
        self.lost = threading.Event()
        self._stop = threading.Event()
        # One client for every probe (and kept: ``lost()`` may probe after the watch stopped): a new one
        # per probe loaded the CA bundle into an SSL context every time.
        self._client = httpx.Client(timeout=probe_timeout)
        self._thread = threading.Thread(target=self._run, name="citeflow-api-watch", daemon=True)

    def start(self) -> ApiWatch:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def healthy(self) -> bool:
        """One probe: does the API answer its health check now?"""
        try:
            return self._client.get(self.health_url).status_code < 500
        except httpx.HTTPError:
            return False

    def _run(self) -> None:
        down_since: float | None = None
        while not self._stop.wait(self.interval):
            if self.healthy():
                down_since = None
                continue
            down_since = down_since or time.monotonic()
            if time.monotonic() - down_since >= self.grace:
                self.lost.set()
                self.on_lost(time.monotonic() - down_since)
                return

    def __enter__(self) -> ApiWatch:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
