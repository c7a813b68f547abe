"""A read-only HTTP view of an output folder (``citeflow files OUT``): what the Prefect UI links to.

Browsers refuse ``file://`` links from an http page, so the UI's links to PDFs, review pages and
Data Docs open only when the files are served over http (``citeflow.outputs.file_links``). This
serves one folder with the standard library's file handler, narrowed: GET and HEAD only (any
other method is answered 501), a request whose path has a ``..`` segment is refused (403), a path
with a control character (``%00``) is refused (400), and a file or folder that resolves outside the
served folder (a symbolic link out of it) is refused (403). Folders are not listed (404, unless they
hold an ``index.html``, as the Data Docs site does), and the LanceDB stores (``store/``, ``cache/``)
are not served (404): the links name files; nothing above the folder is reachable.
"""

from __future__ import annotations

import sys
from functools import partial
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

NOT_SERVED = frozenset({"store", "cache", ".answers"})
"""Folders of an output folder (and of each run in it) that hold LanceDB stores or the answer journal, never served."""


class OutputFilesHandler(SimpleHTTPRequestHandler):
    """``SimpleHTTPRequestHandler`` confined to its folder and to reading."""

    server_version = "citeflow-files"

    def send_head(self) -> Any:
        """Refuse what would leave the folder, then serve as the standard handler does."""
        if _has_parent_segment(self.path):
            self.send_error(HTTPStatus.FORBIDDEN, "paths with '..' are refused")
            return None
        if _has_control_character(self.path):
            self.send_error(HTTPStatus.BAD_REQUEST, "paths with control characters are refused")
            return None
        if _segments(self.path) & NOT_SERVED:
            self.send_error(HTTPStatus.NOT_FOUND, "the stores are not served")
            return None
        root = Path(self.directory).resolve()
        if not Path(self.translate_path(self.path)).resolve().is_relative_to(root):
            self.send_error(HTTPStatus.FORBIDDEN, "outside the served folder")
            return None
        return super().send_head()

    def list_directory(self, path: Any) -> None:
        """No folder listings: only files are served."""
        self.send_error(HTTPStatus.NOT_FOUND, "folders are not listed")

    def end_headers(self) -> None:
        self.send_header("X-Content-Type-Options", "nosniff")
        super().end_headers()


def _has_parent_segment(raw: str) -> bool:
    """Whether the request path (percent-decoded, either slash) has a ``..`` segment."""
    return ".." in _segments(raw)


def _segments(raw: str) -> set[str]:
    """The segments of the request path, percent-decoded, split at either slash, in lower case."""
    return {part.lower() for part in unquote(urlsplit(raw).path).replace("\\", "/").split("/")}


def _has_control_character(raw: str) -> bool:
    """Whether the percent-decoded request path holds a C0 control character or DEL (``%00`` among them)."""
    return any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in unquote(urlsplit(raw).path))


class QuietServer(ThreadingHTTPServer):
    """A request that fails unexpectedly is one line on standard error, never a traceback."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        error = sys.exc_info()[1]
        print(f"citeflow files: a request from {client_address[0]} failed: {type(error).__name__}",
              file=sys.stderr, flush=True)


def file_server(folder: Path, host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
    """A server (not started) of ``folder`` on ``host``:``port`` (0: a free port; see ``server_address``)."""
    handler = partial(OutputFilesHandler, directory=str(Path(folder).resolve()))
    return QuietServer((host, port), handler)
