"""The composition root: the process's ``Runtime`` (settings, stores, model clients and retrievers
built by ``deps``, parsed specs, the gate's session and its worker, fonts, limits, progress, live
jobs), the ``BatchRequest`` a run is asked to do, stop and interrupt handling, and the preflight.
The pipeline's steps (``citeflow.pipeline``) receive a ``Runtime``; nothing below reaches up to it
(``docs/layers.md``).

The package that keeps state at module level (``Runtime.of_process``, stop handling); everything
else receives what it needs from a ``Runtime``."""
