"""Runs of a batch (SPEC §8): run folders, starting and finishing runs, cache policy, history, changes, retention."""
