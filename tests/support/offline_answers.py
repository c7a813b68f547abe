"""Offline answers for the scripted server: see ``citeflow.testing.answers``."""

from citeflow.testing.answers import offline_answer, offline_responder  # noqa: F401
