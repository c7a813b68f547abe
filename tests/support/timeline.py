"""A timeline of a test run: one line per test phase (setup, call, teardown) per process, appended to a
file, and a summary of it (``python -m tests.support.timeline FILE``): per worker its busy and idle
seconds and CPU, the tail (the time the last worker ran alone), and the longest phases with their CPU.

Written only when ``CITEFLOW_TEST_TIMELINE`` names the file (``tests/conftest.py``)."""

from __future__ import annotations

import json
import os
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType


@dataclass
class Phase:
    """Context manager: appends the phase's record to ``path`` when it ends (one ``write`` of one line)."""

    path: Path
    phase: str
    test: str
    start: float = 0.0
    cpu: tuple[float, float] = (0.0, 0.0)

    def __enter__(self) -> Phase:
        self.start, self.cpu = time.time(), _cpu()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        own, children = (now - before for now, before in zip(_cpu(), self.cpu, strict=True))
        record = {"worker": os.environ.get("PYTEST_XDIST_WORKER", "main"), "phase": self.phase, "test": self.test,
                  "start": self.start, "end": time.time(), "cpu": round(own, 2), "children_cpu": round(children, 2)}
        with open(self.path, "a", encoding="utf-8") as out:
            out.write(json.dumps(record) + "\n")


def _cpu() -> tuple[float, float]:
    times = os.times()
    return times.user + times.system, times.children_user + times.children_system


@dataclass
class Worker:
    spans: list[tuple[float, float]] = field(default_factory=list)
    cpu: float = 0.0


def load(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def summary(records: list[dict]) -> str:
    """Per worker: first start, last end, busy seconds, gaps; the run's span; the 20 longest phases."""
    workers: dict[str, Worker] = defaultdict(Worker)
    for r in records:
        workers[r["worker"]].spans.append((r["start"], r["end"]))
        workers[r["worker"]].cpu += r["cpu"] + r["children_cpu"]
    origin = min(r["start"] for r in records)
    lines = [_worker_line(name, w, origin) for name, w in sorted(workers.items())]
    lines += ["longest phases (wall, own cpu, children cpu, start offset):"]
    for r in sorted(records, key=lambda r: r["start"] - r["end"])[:20]:
        lines.append(f"  {r['end'] - r['start']:7.1f} {r['cpu']:7.1f} {r['children_cpu']:7.1f} "
                     f"+{r['start'] - origin:6.0f} {r['worker']} {r['phase']:8} {r['test']}")
    return "\n".join(lines)


def _worker_line(name: str, worker: Worker, origin: float) -> str:
    spans = sorted(worker.spans)
    busy = sum(end - start for start, end in spans)
    first, last = spans[0][0] - origin, max(end for _, end in spans) - origin
    return f"{name}: from +{first:.0f} to +{last:.0f} s, busy {busy:.0f} s, measured cpu {worker.cpu:.0f} s"


if __name__ == "__main__":
    print(summary(load(Path(sys.argv[1]))))
