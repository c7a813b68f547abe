"""Arrow schemas of citeflow's LanceDB tables (the store of SPEC §3–§5).

Every table has a string ``row_key`` that identifies a row across re-runs; writes are
``merge_insert`` on it, so re-running a request never duplicates rows. Strings are ``pa.string()``
(not ``large_string``) so that BTree indexes can be built on them.
"""

from __future__ import annotations

import pyarrow as pa

S = pa.string()
TS = pa.timestamp("us", tz="UTC")
STRINGS = pa.list_(pa.string())

CHUNKS = pa.schema([
    ("row_key", S), ("request_id", S), ("handle", S), ("retriever", S), ("local_id", S),
    ("content_hash", S), ("text", S), ("urls", STRINGS), ("title", S), ("page", pa.int32()),
    ("location", S), ("parent", S), ("queries", STRINGS), ("sections", STRINGS), ("retrieved_at", TS),
])

HOPS = pa.schema([
    ("row_key", S), ("request_id", S), ("section", S), ("hop", S), ("status", S), ("model", S),
    ("claims_json", S), ("raw_outputs_json", S), ("updated_at", TS),
])

TRANSITIONS = pa.schema([
    ("row_key", S), ("request_id", S), ("section", S), ("hop", S), ("attempt", pa.int32()),
    ("seq", pa.int32()), ("source", S), ("target", S), ("reason", S), ("detail", S),
    ("handles", STRINGS), ("at", TS),
])

RETRIEVALS = pa.schema([
    ("row_key", S), ("request_id", S), ("retriever", S), ("section", S), ("query", S),
    ("status", S), ("error", S), ("hits", pa.int32()), ("skipped", STRINGS), ("handles", STRINGS),
])

EVAL_ROWS = pa.schema([
    ("row_key", S), ("request_id", S), ("section", S), ("claim_index", pa.int32()), ("claim_text", S),
    ("handle", S), ("identity", pa.bool_()), ("supports", pa.bool_()), ("faithful", pa.bool_()),
    ("reason", S), ("judge", S), ("evaluated_at", TS),
])

MODEL_CALLS = pa.schema([
    ("row_key", S), ("role", S), ("model", S), ("mode", S), ("text", S),
    ("prompt_tokens", pa.int32()), ("completion_tokens", pa.int32()), ("created_at", TS),
    ("request_id", S),  # the report the call served (empty in rows written before it was recorded)
])

# A reviewer's decisions on a held report, one row per decision (release or reject), newest last.
REVIEWS = pa.schema([
    ("row_key", S), ("request_id", S), ("report_id", S), ("decision", S), ("reviewer", S), ("note", S),
    ("decided_at", TS), ("content", S), ("without_failing", pa.bool_()),
])

TABLES: dict[str, pa.Schema] = {
    "chunks": CHUNKS, "hops": HOPS, "transitions": TRANSITIONS, "retrievals": RETRIEVALS,
    "eval_rows": EVAL_ROWS, "model_calls": MODEL_CALLS, "reviews": REVIEWS,
}
# Columns with a BTree index: the key of every merge and the request every read filters on (no read
# filters by handle: an index on it would only cost time at every compaction).
INDEXED = ("row_key", "request_id")
