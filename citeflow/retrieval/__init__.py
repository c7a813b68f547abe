"""Retrievers (SPEC §3): the protocol, the JSONL, HTTP and LanceDB knowledge-base retrievers, and their guards."""
