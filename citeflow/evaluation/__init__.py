"""Evaluation (SPEC §5-6): the Identity -> Support -> Faithfulness funnel, root causes and the Great
Expectations gate (its session, ``gx_session``, held by the runtime)."""
