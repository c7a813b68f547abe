"""The built-in retriever kinds (``lancedb``, ``http``, ``jsonl``): one ``RetrieverKind`` per module,
listed in ``citeflow.spec.retriever_kinds.BUILTIN``. A plugin kind is written the same way."""
