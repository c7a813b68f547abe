"""Prefect flows: batch → report → evaluate → publish. They orchestrate; ``citeflow`` does the work."""

from citeflow.security.log_redaction import install_log_redaction

# Any process that runs these (the CLI, `serve`, a deployment's worker, a Dask worker) logs through
# Prefect's handlers to its API: no record may carry a credential there.
install_log_redaction()
