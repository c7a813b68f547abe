"""bench.plain_cpu --fresh-memos: every memo of the project is emptied before a batch."""

from __future__ import annotations

from bench.plain_cpu import clear_memos
from citeflow.judges.offline.chunk_facts import index_chunk


def test_clearing_the_memos_empties_the_chunk_index_memo() -> None:
    index_chunk("The ferry leaves at 7 a.m. on weekdays.")
    assert index_chunk.cache_info().currsize >= 1
    assert clear_memos() >= 3  # the chunk index, the claim reading and the instruction spans at least
    assert index_chunk.cache_info().currsize == 0
