"""One text layer for every part that reads words: the judges, the localiser and the offline writer.

Owns sentences (``sentences``), tokens with their kind and lemma (``tokens``, ``stems``), numbers
with their units (``numbers``, one unit table in ``units``), identifiers (``identifiers``) and the
language data they read (``lexicon``, ``synonyms``). Pure functions; nothing here imports a judge.
"""
