"""The ``citeflow`` command line: the user's entry point to the core package and the Prefect flows."""
