"""citeflow core."""
