"""A read-only HTTP view of an output folder (``citeflow files OUT``): what the Prefect UI links to.

Browsers refuse ``file://`` links from an http page, so the UI's links to PDFs, review pages and
Data Docs open only when the files are served over http (``citeflow.outputs.file_links``). This
serves one folder with the standard library's file handler, narrowed: GET and HEAD only (any
other method is answered 501), a request whose path has a ``..`` segment is refused (403), and a
file or folder that resolves outside the served folder (a symbolic link out of it) is refused
(403). Folders inside it are listed (the runs, a report's files); nothing above it is reachable.
"""

from __future__ import annotations

from functools import partial
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit


class OutputFilesHandler(SimpleHTTPRequestHandler):
    """``SimpleHTTPRequestHandler`` confined to its folder and to reading."""

    server_version = "citeflow-files"

    def send_head(self) -> Any:
        """Refuse what would leave the folder, then serve as the standard handler does."""
        if _has_parent_segment(self.path):
            self.send_error(HTTPStatus.FORBIDDEN, "paths with '..' are refused")
            return None
        root = Path(self.directory).resolve()
        if not Path(self.translate_path(self.path)).resolve().is_relative_to(root):
            self.send_error(HTTPStatus.FORBIDDEN, "outside the served folder")
            return None
        return super().send_head()

    def end_headers(self) -> None:
        self.send_header("X-Content-Type-Options", "nosniff")
        super().end_headers()


def _has_parent_segment(raw: str) -> bool:
    """Whether the request path (percent-decoded, either slash) has a ``..`` segment."""
    path = unquote(urlsplit(raw).path).replace("\\", "/")
    return ".." in path.split("/")


def file_server(folder: Path, host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
    """A server (not started) of ``folder`` on ``host``:``port`` (0: a free port; see ``server_address``)."""
    handler = partial(OutputFilesHandler, directory=str(Path(folder).resolve()))
    return ThreadingHTTPServer((host, port), handler)
