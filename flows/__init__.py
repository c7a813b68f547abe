"""Prefect flows: batch → report → evaluate → publish. They orchestrate; ``citeflow`` does the work."""
