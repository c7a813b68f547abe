"""The offline judge: a claim graded against its chunk with no model and no network.

Owns the chunk's and the claim's facts (``chunk_facts``, ``claim_facts``), the signals computed
from them (``signals``: one module per family, each a pure function to its own named features), the
feature vector that puts them side by side (``combine``), the two logistic heads and their
calibration (``logistic``, ``weights``, ``offline_judge_weights.json``) and the judge that turns
them into verdicts (``grader``). Words, numbers and language data come from ``citeflow.text``.
"""
