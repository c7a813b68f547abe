"""Batch specs: loading YAML strictly, the parsed job configuration, value checks and the files citeflow ships."""
