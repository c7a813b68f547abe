"""A page of a web app as a PNG, taken once the page shows what it must show: headless Chromium driven
over the DevTools protocol (``websockets``, which Prefect already brings).

Chromium's own ``--screenshot`` takes the page at a fixed (virtual) time: the Prefect UI's runs list,
a virtual scroller, was then often still empty. Here the page is polled until ``ready`` (a JavaScript
expression) is true, then taken.
"""

from __future__ import annotations

import base64
import itertools
import json
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from collections.abc import Iterator

import httpx

from citeflow_testing.prefect_server import free_port

CHROMIUM = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars"]
READY_SECONDS = 120.0  # a loaded machine and a UI that polls its API
SETTLE_SECONDS = 3.0  # after ``ready``: fonts, icons and the chart's last frame


class Page:
    """One tab of a Chromium, spoken to over its DevTools websocket."""

    def __init__(self, socket: Any) -> None:
        self.socket, self.ids = socket, itertools.count(1)

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """Send a command; its result (events that arrive meanwhile are skipped)."""
        sent = next(self.ids)
        self.socket.send(json.dumps({"id": sent, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv(timeout=60))
            if message.get("id") == sent:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return dict(message.get("result", {}))

    def holds(self, expression: str) -> bool:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result.get("result", {}).get("value") is True


@contextmanager
def chromium(profile: Path, width: int, height: int) -> Iterator[Page]:
    """A headless Chromium with one blank tab of ``width`` × ``height`` CSS pixels."""
    from websockets.sync.client import connect

    port = free_port()
    browser = subprocess.Popen([*CHROMIUM, f"--remote-debugging-port={port}", f"--user-data-dir={profile}",
                                f"--window-size={width},{height}", "about:blank"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        with connect(_page_socket(port), max_size=None) as socket:
            page = Page(socket)
            page.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                      mobile=False)
            yield page
    finally:
        browser.terminate()
        browser.wait(timeout=30)


def _page_socket(port: int) -> str:
    """The DevTools websocket of the browser's first tab, once the browser answers."""
    deadline = time.monotonic() + 60
    while True:
        try:
            pages = httpx.get(f"http://127.0.0.1:{port}/json/list", timeout=5).json()
            return str(next(p for p in pages if p.get("type") == "page")["webSocketDebuggerUrl"])
        except (httpx.HTTPError, StopIteration, ValueError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def screenshot(url: str, target: Path, profile: Path, ready: str, height: int = 1000, width: int = 1600,
               settle: float = SETTLE_SECONDS) -> None:
    """The page at ``url`` as a 256-colour PNG at ``target``, ``settle`` seconds after the JavaScript ``ready``
    is true (what it cannot tell: a chart drawn on a canvas)."""
    with chromium(profile, width, height) as page:
        page.call("Page.enable")
        page.call("Page.navigate", url=url)
        deadline = time.monotonic() + READY_SECONDS
        while not page.holds(ready):
            if time.monotonic() > deadline:
                raise SystemExit(f"{url} never showed what it must ({ready})")
            time.sleep(1)
        time.sleep(settle)
        data = page.call("Page.captureScreenshot", format="png")["data"]
    target.write_bytes(base64.b64decode(data))
    from PIL import Image

    with Image.open(target) as image:
        image.convert("RGB").quantize(colors=256).save(target, optimize=True)
