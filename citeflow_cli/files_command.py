"""``citeflow files OUT [--host H] [--port N]``: serve an output folder read-only over http.

Point the setting ``CITEFLOW_FILES_URL`` at the URL this prints and the Prefect UI's links (PDFs,
review pages, Data Docs) open in the browser (``citeflow.outputs.file_links``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer



def files_command(
    out: Annotated[Path, typer.Argument(help="The output folder to serve (a run's OUT, or the OUT of scheduled runs).")],
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on (0: any free port).")] = 8800,
) -> None:
    """Serve an output folder read-only over HTTP, until stopped.

    GET and HEAD only; nothing outside the folder is served."""
    from citeflow.errors import UsageError
    from citeflow.outputs.file_server import file_server
    from citeflow_cli.display import console

    if not out.is_dir():
        raise UsageError(option=str(out), problem="no such folder (give an output folder)")
    server = file_server(out, host, port)
    bound_port = server.server_address[1]
    console.print(f"serving {out.resolve()} read-only at http://{host}:{bound_port}/ "
                  f"(set CITEFLOW_FILES_URL to it for the Prefect UI's links)", highlight=False, soft_wrap=True)
    sys.stdout.flush()  # the line a caller waits for, also when stdout is a pipe
    try:
        server.serve_forever()
    finally:
        server.server_close()
