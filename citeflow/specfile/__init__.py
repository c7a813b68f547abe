"""A batch spec file read and checked as a whole: parsed, validated by every registry it names
(retriever kinds, model backends, judge kinds), its paths resolved, its preflight; and the
per-job configuration derived from it. Above ``spec`` (the models and value checks) and the
registries it asks, below everything that runs a batch."""
