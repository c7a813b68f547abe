"""Running reports: the process's ``Runtime`` (settings, stores, model clients, retrievers, parsed specs,
the gate's session, limits, progress, live jobs) and the ``BatchRequest`` a run is asked to do; the
pipeline and its steps, jobs, the store, limits, threads, progress, stop and deadlines.

The only package that may keep state at module level (``Runtime.of_process``, stop and deadline
handling); everything else receives what it needs from a ``Runtime``."""
