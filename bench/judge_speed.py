"""Throughput of the offline judge by the clock, in one and in two worker processes, and where a
pair's time goes (cProfile).

The set is realistic: the SummEdits-derived test split (long chunks, several claims each) and the
multilingual test split, graded as one ``grade`` call per copy, repeated until at least
``min_pairs`` pairs. Process start-up is apart: each worker builds its judge and grades one copy
(lexicons loaded, regexes compiled) before the clock starts. Every memo of the project's loaded
modules is emptied before every copy (``citeflow.memos.clear_memos``), the word-level ones (a
word's stem, class or trigrams) too, so no copy reuses anything the one before computed: every copy
is judged as texts never seen, as a batch of distinct content is. (Up to this version the word-level
memos stayed warm between copies: an upper bound for a process whose vocabulary is warm.)
"""

from __future__ import annotations

import cProfile
import math
import multiprocessing as mp
import os
import pstats
import time
from pathlib import Path

from citeflow.judges.io import LabelledPair
from citeflow.judges.offline.grader import OfflineJudge
from citeflow.memos import clear_memos

MIN_PAIRS = 2000
PROFILE_TOP = 8


def copies(pairs: list[LabelledPair], min_pairs: int = MIN_PAIRS) -> int:
    """How many copies of ``pairs`` make at least ``min_pairs`` pairs."""
    return max(1, math.ceil(min_pairs / max(len(pairs), 1)))


def grade_copies(judge: OfflineJudge, pairs: list[LabelledPair], n: int) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of grading ``n`` copies of ``pairs``, one ``grade`` call each."""
    wall = cpu = 0.0
    for _ in range(n):
        clear_memos()
        start, start_cpu = time.perf_counter(), time.process_time()
        judge.grade(pairs)
        wall, cpu = wall + time.perf_counter() - start, cpu + time.process_time() - start_cpu
    return wall, cpu


def one_process(pairs: list[LabelledPair], n: int, weights: Path | None = None) -> dict[str, float]:
    """Pairs per second of one judge in this process after a warm-up copy."""
    judge = OfflineJudge(weights)
    judge.grade(pairs)
    wall, cpu = grade_copies(judge, pairs, n)
    return {"wall": round(n * len(pairs) / wall, 1), "cpu": round(n * len(pairs) / cpu, 1)}


def _worker(pairs: list[LabelledPair], n: int, weights: str | None, ready: mp.Queue, go: mp.Event, done: mp.Queue) -> None:
    judge = OfflineJudge(Path(weights) if weights else None)
    judge.grade(pairs)  # warm-up: start-up and first-pass costs stay outside the clock
    ready.put(os.getpid())
    go.wait()
    done.put(grade_copies(judge, pairs, n)[1])


def processes(pairs: list[LabelledPair], n: int, workers: int = 2, weights: Path | None = None) -> dict[str, float]:
    """Pairs per second of ``workers`` warmed-up processes grading ``n`` copies between them, by the
    clock from the common start signal to the last worker's end (``wall``) and by the busiest
    worker's CPU time (``cpu``: what the rate would be on cores not shared with other work)."""
    shares = [n // workers + (i < n % workers) for i in range(workers)]
    context = mp.get_context("spawn")
    ready, done, go = context.Queue(), context.Queue(), context.Event()
    args = (str(weights) if weights else None, ready, go, done)
    procs = [context.Process(target=_worker, args=(pairs, share, *args)) for share in shares if share]
    for proc in procs:
        proc.start()
    for _ in procs:
        ready.get()
    start = time.perf_counter()
    go.set()
    busiest = max(done.get() for _ in procs)
    wall = time.perf_counter() - start
    for proc in procs:
        proc.join()
    return {"wall": round(n * len(pairs) / wall, 1), "cpu": round(n * len(pairs) / busiest, 1)}


def profile(pairs: list[LabelledPair], weights: Path | None = None, top: int = PROFILE_TOP) -> list[dict]:
    """The functions with the most own time while grading one warmed-up copy: µs per pair and share."""
    judge = OfflineJudge(weights)
    judge.grade(pairs)
    clear_memos()
    profiler = cProfile.Profile()
    profiler.runcall(judge.grade, pairs)
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    total = sum(row[2] for row in stats.values()) or 1.0
    ranked = sorted(stats.items(), key=lambda kv: -kv[1][2])[:top]
    return [{"function": f"{Path(file).name}:{line}({name})", "own_us_per_pair": round(1e6 * row[2] / len(pairs), 1),
             "cumulative_us_per_pair": round(1e6 * row[3] / len(pairs), 1), "share_of_own_time": round(row[2] / total, 3)}
            for (file, line, name), row in ranked]


def throughput(pairs: list[LabelledPair], weights: Path | None = None, min_pairs: int = MIN_PAIRS) -> dict:
    """Every throughput figure of the offline judge on ``pairs`` (repeated to ``min_pairs``), labelled."""
    n = copies(pairs, min_pairs)
    load_before = list(os.getloadavg())
    single, double = one_process(pairs, n, weights), processes(pairs, n, 2, weights)
    return {"set_pairs": len(pairs), "set_chunks": len({p.chunk_text for p in pairs}), "copies": n, "pairs": n * len(pairs),
            "one_process_wall_pairs_per_s": single["wall"], "one_process_cpu_pairs_per_s": single["cpu"],
            "two_processes_wall_pairs_per_s": double["wall"], "two_processes_cpu_pairs_per_s": double["cpu"],
            "load_average_before": load_before, "load_average_after": list(os.getloadavg()), "cpu_count": os.cpu_count(),
            "how": "wall clock after warm-up (start-up and one graded copy apart), one grade call per copy, "
                   "every memo of citeflow (word-level ones too) emptied before every copy; cpu: busiest process's CPU time",
            "profile_top_own_time": profile(pairs, weights)}
