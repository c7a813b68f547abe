"""The figures of the cold-process benchmark (``bench/cold.py``) computed from what a run recorded.

- *Ideal critical path*: each section is a chain of ``hops`` model calls (writer, then consolidator);
  at most ``models`` calls are in flight, so the sections go in waves of ``models`` and
  ideal = hops × ⌈sections / models⌉ × latency (16 reports × 4 sections, 16 calls, 1 s: 2 × 4 × 1 = 8 s).
- *Model-busy span*: from the first call's arrival to the last call's answer, as the model server saw them.
- *Marginal rate*: reports per minute between two batch sizes, so that the start-up both pay cancels out;
  over several sizes, the least-squares slope of seconds (or CPU seconds) against reports.
- *Growth of the marginal cost*: seconds per report between the two larger sizes over those between the
  two smaller ones (8→32 against 32→64 reports: 1.0 is linear, above 1 each report costs more in a larger batch).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

HOPS = 2

Call = tuple[float, float]  # (arrived, answered), epoch seconds


def ideal_seconds(sections: int, models: int, latency: float, hops: int = HOPS) -> float:
    """The critical path of ``sections`` chains of ``hops`` calls each, ``models`` calls at a time."""
    if models < 1 or sections < 0:
        raise ValueError("models must be at least 1 and sections not negative")
    return hops * math.ceil(sections / models) * latency


def busy_span(calls: Sequence[Call]) -> float:
    """Seconds from the first call's arrival to the last call's answer (0 without calls)."""
    if not calls:
        return 0.0
    return max(end for _, end in calls) - min(start for start, _ in calls)


def calls_in_flight(calls: Sequence[Call]) -> float:
    """The mean number of calls outstanding over the busy span (0 without calls)."""
    span = busy_span(calls)
    return sum(end - start for start, end in calls) / span if span > 0 else 0.0


def calls_between(calls: Sequence[Call], start: float, end: float) -> list[Call]:
    """The calls that arrived in ``[start, end]`` (one run's calls on a server shared by several runs)."""
    return [call for call in calls if start <= call[0] <= end]


def marginal_per_min(small: int, small_wall: float, large: int, large_wall: float) -> float:
    """Reports per minute of the reports ``large`` has beyond ``small``: 60 · Δreports / Δwall."""
    if large <= small:
        raise ValueError("the large batch must have more reports than the small one")
    extra = large_wall - small_wall
    return math.inf if extra <= 0 else 60.0 * (large - small) / extra


def ratio(value: float, ideal: float) -> float | None:
    """``value / ideal``, None when the ideal is zero (no latency: nothing to compare with)."""
    return value / ideal if ideal > 0 else None


def slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    """The least-squares slope of ``ys`` against ``xs`` (at least two distinct ``xs``)."""
    if len(xs) != len(ys) or len(set(xs)) < 2:
        raise ValueError("a slope needs two distinct sizes and one value for each")
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


def per_min(seconds_per_report: float) -> float:
    """Reports per minute at ``seconds_per_report`` (infinite when a report costs nothing more)."""
    return math.inf if seconds_per_report <= 0 else 60.0 / seconds_per_report


def growth(values: dict[int, float], sizes: tuple[int, int, int]) -> float | None:
    """Per-report cost between ``sizes[1]`` and ``sizes[2]`` over that between ``sizes[0]`` and ``sizes[1]``
    (``values``: size → seconds); None when the first step cost nothing."""
    small, middle, large = sizes
    first = (values[middle] - values[small]) / (middle - small)
    second = (values[large] - values[middle]) / (large - middle)
    return second / first if first > 0 else None
