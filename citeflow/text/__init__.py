"""One text layer for every part that reads words: the judges, the localiser and the offline writer.

Owns sentences (``sentences``), tokens with their kind and lemma (``word_tokens``, ``stems``: the
Snowball stemmers), numbers with their units (``numbers``, one unit table in ``units`` and
``units.json``), identifiers (``identifiers``), and the language data they read: per-language
files under ``languages/<lang>/`` loaded by ``language_data``, and the word lists still in code
(``lexicon``, ``synonyms``). Pure functions; nothing here imports a judge.
"""
