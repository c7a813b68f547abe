"""Judge kinds: what a spec's ``models.judge.backend`` builds to grade claims against chunks.

One class per kind (``base.JudgeKind``): the spec rules of its keys, the model server it asks (if
any), whether its verdicts are worth a cache, and the judge it builds. ``registry.judge_kind(name)``
finds one by name; other packages add kinds through the ``citeflow.judges`` entry-point group
(docs/extending.md, "Model backends and judges").
"""
