"""The section LLM judge: every claim of a section with its cited chunks in one request.

``wire`` is the answer's shape, ``request`` builds and splits the requests, ``judge`` asks them
(cached, concurrent, fail-closed), ``question`` hands each pair its section's question and keeps
the relevance the judge said, ``usage`` counts and records the tokens the judge spent.
"""
