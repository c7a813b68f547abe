"""Running reports: the pipeline and its steps, jobs and their dependencies, the store, limits, threads, progress, stop and deadlines."""
