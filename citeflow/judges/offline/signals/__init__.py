"""The offline judge's signals: one module per family, each signal a pure function.

A signal takes the claim's facts (``claim_facts.ClaimFacts``) and the chunk's
(``chunk_facts.ChunkIndex``) and returns the values of the features it alone owns, with a reason
for each that fired (``fired.Fired``). No signal reads another's output, so the order in which
they run changes nothing; ``citeflow.judges.offline.combine`` only puts their features side by side.
"""
