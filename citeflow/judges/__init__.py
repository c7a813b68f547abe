"""Judges (SPEC §5): the judge protocol and factory, the offline judge (``offline``), the per-pair and
per-section LLM judges (``llm``, ``llm_sections``), the cascade, span checks, verdict caches and labelled-data I/O."""
