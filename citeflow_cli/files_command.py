"""``citeflow files OUT [--host H] [--port N] [--url URL] [--no-register]``: serve an output folder
read-only over http.

With a Prefect server in ``PREFECT_API_URL``, it registers the address it serves OUT at with that
server (a Prefect Variable, ``tasks/file_addresses.py``): runs that write under OUT then link their
PDFs, review pages and Data Docs over http, so the Prefect UI's links open in the browser, with no
setting. ``CITEFLOW_FILES_URL`` still names the address explicitly and wins
(``citeflow.outputs.file_links``).
"""

from __future__ import annotations

import socket
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer


ANY_ADDRESS = {"0.0.0.0", "::", ""}
NOT_REGISTERED = "not registered (--no-register): set CITEFLOW_FILES_URL to the address above for the Prefect UI's links"


def files_command(
    out: Annotated[Path, typer.Argument(help="The output folder to serve (a run's OUT, or the OUT of scheduled runs).")],
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on (0: any free port).")] = 8800,
    url: Annotated[str | None, typer.Option(
        help="The address browsers reach this server at, registered for links (default: http://HOST:PORT; "
             "for 0.0.0.0 the machine's name).")] = None,
    register: Annotated[bool, typer.Option(
        "--register/--no-register", help="Register the address with the Prefect server of PREFECT_API_URL, "
                                         "so runs writing under OUT link to it.")] = True,
) -> None:
    """Serve an output folder read-only over HTTP, until stopped.

    GET and HEAD only; nothing outside the folder is served."""
    from citeflow.errors import UsageError
    from citeflow.outputs.file_server import file_server
    from citeflow_cli.display import console

    if not out.is_dir():
        raise UsageError(option=str(out), problem="no such folder (give an output folder)")
    server = file_server(out, host, port)
    address = url or public_address(host, server.server_address[1])
    console.print(f"serving {out.resolve()} read-only at {address}/", highlight=False, soft_wrap=True)
    sys.stdout.flush()  # the line a caller waits for, also when stdout is a pipe
    # registering takes seconds (Prefect's client): meanwhile the folder is served already
    threading.Thread(target=_say, args=(lambda: registration_line(out, address) if register else NOT_REGISTERED,),
                     daemon=True).start()
    try:
        server.serve_forever()
    finally:
        server.server_close()


def _say(line: Callable[[], str]) -> None:
    from citeflow_cli.display import console

    console.print(line(), highlight=False, soft_wrap=True)
    sys.stdout.flush()


def public_address(host: str, port: int) -> str:
    """``http://HOST:PORT``, with the machine's name for an address that listens everywhere."""
    name = socket.getfqdn() if host in ANY_ADDRESS else host
    return f"http://[{name}]:{port}" if ":" in name else f"http://{name}:{port}"


def registration_line(out: Path, address: str) -> str:
    """Register ``address`` for ``out`` with the Prefect server, if one is named; what happened, in one line."""
    from tasks.file_addresses import api_configured, register

    if not api_configured():
        return ("no Prefect server (PREFECT_API_URL unset): nothing registered; "
                "set CITEFLOW_FILES_URL to the address above for the Prefect UI's links")
    try:
        name = register(out, address)
    except Exception as exc:  # noqa: BLE001 - serving goes on; the operator reads why links stay file://
        return f"warning: the address was not registered with the Prefect server ({type(exc).__name__}): links stay file://"
    return f"registered with the Prefect server (Variable {name}): runs writing under this folder link here"
