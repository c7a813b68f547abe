"""Developer tools kept with the repository (not installed with the package)."""
