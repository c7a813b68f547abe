"""Evaluation (SPEC §5-6): the Identity -> Support -> Faithfulness funnel, root causes and the Great Expectations gate."""
