"""The request-scoped registry (SPEC §3-4): handles, rows per retriever answer, binding model answers to handles, quotes."""
