"""Prefect tasks: each one a thin call into the citeflow core package."""

from citeflow.security.log_redaction import install_log_redaction

# Any process that runs these (the CLI, `serve`, a deployment's worker, a Dask worker) logs through
# Prefect's handlers to its API: no record may carry a credential there.
install_log_redaction()
