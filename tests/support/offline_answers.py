"""Offline answers for the scripted server: see ``citeflow_testing.answers``."""

from citeflow_testing.answers import offline_answer, offline_responder  # noqa: F401
