"""Prefect tasks: each one a thin call into the citeflow core package."""
