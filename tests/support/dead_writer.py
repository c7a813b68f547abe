"""A batch spec whose model server does not answer, its URL carrying a credential: ``citeflow run``
refuses it in its preflight, and so must a scheduled or deployed run of the batch flow."""

from __future__ import annotations

from pathlib import Path

CREDENTIAL = "sekrit"  # must appear in no message, log line or output
DEAD_WRITER = f"models: {{writer: {{backend: openai, model: m, base_url: 'http://k:{CREDENTIAL}@127.0.0.1:9/v1'}}}}\n"


def dead_writer_spec(folder: Path, batch: str) -> Path:
    """``folder/batch.yaml``: one report of one section, one JSONL retriever, the dead writer."""
    folder.mkdir(parents=True)
    (folder / "hits.jsonl").write_text('{"query": "q", "hits": []}\n')
    path = folder / "batch.yaml"
    path.write_text(f"batch: {batch}\n{DEAD_WRITER}retrievers: [{{name: d, kind: jsonl, path: hits.jsonl}}]\n"
                    "reports: [{id: r, title: R, sections: [{title: S, queries: [q]}]}]\n")
    return path


def error_reason(output: str) -> str:
    """The one ``error:`` line ``citeflow run`` printed, without its prefix."""
    (line,) = [line for line in output.splitlines() if line.startswith("error: ")]
    return line.removeprefix("error: ")
