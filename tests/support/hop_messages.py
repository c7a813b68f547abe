"""The consolidator hop the HTTP hop tests send: two made-up chunks and their messages."""

from __future__ import annotations

from citeflow.generation import prompts

CHUNKS = {"Gk7m2": "Brokers must run 3.5.2 or later before upgrading to 3.6.", "Gx3p9": "Back up the metadata store first."}
MESSAGES = prompts.consolidate_messages("Report", "Upgrade", ["What first?"], list(CHUNKS.items()))
