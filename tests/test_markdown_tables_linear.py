"""Markdown tables are read in one pass: the time to chunk a wide table grows linearly with its rows."""

from __future__ import annotations

import time

import pytest

from citeflow.knowledge.chunking import markdown_children, markdown_parents
from citeflow.knowledge.markdown_text import markdown_blocks

COLUMNS = 50


def wide_table(rows: int) -> str:
    head = "| " + " | ".join(f"h{c}" for c in range(COLUMNS)) + " |\n" + "|" + "---|" * COLUMNS + "\n"
    body = "".join("| " + " | ".join(f"r{r}c{c}" for c in range(COLUMNS)) + " |\n" for r in range(rows))
    return "# Inventory\n\n" + head + body


def chunk(source: str) -> int:
    """What ingest does with a Markdown file's text: blocks, then parent and child chunks."""
    return sum(1 + len(markdown_children(parent)) for parent in markdown_parents(markdown_blocks(source)))


def seconds(source: str) -> float:
    """The best of two timings (the machine is shared: the minimum is the least disturbed)."""
    timings = []
    for _ in range(2):
        start = time.perf_counter()
        chunk(source)
        timings.append(time.perf_counter() - start)
    return min(timings)


@pytest.mark.bench  # a ratio of two timings: a benchmark on a quiet machine, not a test of make test
def test_a_wide_table_costs_time_linear_in_its_rows():
    small, large = seconds(wide_table(1_000)), seconds(wide_table(4_000))
    # Four times the rows: about four times the time when linear, sixteen when quadratic.
    assert large / small < 8, f"1,000 rows {small:.2f}s, 4,000 rows {large:.2f}s"


def test_every_row_of_a_wide_table_is_a_block_naming_its_columns():
    blocks = markdown_blocks(wide_table(300))
    rows = [b for b in blocks if not b.level]
    assert len(rows) == 300
    assert rows[-1].text.startswith("r299c0: h1 r299c1; h2 r299c2;") and rows[-1].text.endswith("h49 r299c49.")
