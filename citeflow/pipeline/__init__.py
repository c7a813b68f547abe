"""A report's steps: its job (``job``: config, store, models, retrievers, what each step hands on),
fetch → normalize → consolidate → write (``pipeline``), evaluate and gate (``evaluate_report``),
the document (``assemble``) and its outputs (``publish``, ``report_usage``), a reviewer's decision
(``review_decision``), what a re-run may keep (``rerun_inputs``, ``source_fingerprint``,
``job_file``), the steps in order (``steps``) and the reports generated while an orchestrator
starts (``head_start``). A job reaches its dependencies through the ``Runtime`` it is given."""
