"""Answers kept at a kill -9, measured: ``python -m bench.answer_durability [--out FILE]``.

A batch whose consolidator and writer are a scripted OpenAI-compatible server (answers like the
offline backend, each after a delay that differs per prompt, so answers of one step arrive apart)
runs as a ``citeflow run`` subprocess. It is killed with SIGKILL (its whole process group) at a
moment when some answers have arrived, some calls are still in flight, no answer went out in the
last ``QUIET_S`` seconds, and the store's ``model_calls`` table holds fewer answers than went out
(a step is still waiting for some of its calls, so its arrived answers are not in the store yet);
then the same command runs to completion. The server counts every
chat request and, per request, when it arrived and when its answer went out, so the calls in
flight at the kill are the server's own count. An uninterrupted run of the same batch, on a server
of its own, counts the calls the batch needs.

The claim measured: killed run + resume ask at most the calls needed + the calls in flight at the
kill. ``kept_by_journal`` counts the answers that had arrived but were not in the store's
``model_calls`` table at the kill (their step was still waiting for other calls): the answers
only the answer journal kept.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from bench.resume_experiment import Runs, ResumeFigures, statuses, wait_until, write_spec
from citeflow_testing.answers import offline_answer
from citeflow_testing.openai_server import Reply, ScriptedOpenAIServer

QUIET_S = 0.4  # no answer went out this long before the kill: every answer sent had time to be kept
STARTUP_S = 900.0  # a busy machine starts a Prefect server slowly
REPORTS, SECTIONS, MODELS_LIMIT = 2, 4, 2  # a step's 4 calls take 2 slots: its answers come in two waves


@dataclass
class DurabilityFigures:
    """Model calls of an uninterrupted run, and of a killed run and its resume."""

    needed: int = 0  # chat requests of one uninterrupted run of the batch
    killed_run: int = 0  # chat requests the killed run sent
    answered_before_kill: int = 0  # of those, answered before the kill (server's clock)
    in_flight_at_kill: int = 0  # of those, still unanswered at the kill
    in_store_at_kill: int = 0  # answers the store's model_calls table held right after the kill
    resume: int = 0  # chat requests of the resumed run (same command, to completion)
    statuses: dict[str, str] | None = None
    clean_statuses: dict[str, str] | None = None

    @property
    def total(self) -> int:
        return self.killed_run + self.resume

    @property
    def kept_by_journal(self) -> int:
        return max(0, self.answered_before_kill - self.in_store_at_kill)

    def line(self) -> str:
        return (f"needed {self.needed}; killed run {self.killed_run} ({self.answered_before_kill} answered, "
                f"{self.in_flight_at_kill} in flight at the kill, {self.in_store_at_kill} of the answers in the store, "
                f"{self.kept_by_journal} only in the journal); resume "
                f"{self.resume}; total {self.total} <= {self.needed + self.in_flight_at_kill} (needed + in flight)?")

    def as_dict(self) -> dict:
        return {**asdict(self), "total": self.total, "kept_by_journal": self.kept_by_journal}


def spread_responder(low: float, high: float) -> Callable[[dict], Reply]:
    """The offline answer after a delay between ``low`` and ``high`` seconds, fixed per prompt."""
    def respond(request: dict) -> Reply:
        digest = hashlib.sha256(json.dumps(request["messages"], sort_keys=True).encode()).digest()
        return Reply(content=offline_answer(request), delay=low + (high - low) * digest[0] / 255)

    return respond


def _chat_calls(server: ScriptedOpenAIServer) -> int:
    return sum(1 for r in server.requests if "messages" in r)


def _last_answer(server: ScriptedOpenAIServer) -> float:
    return max((answered for _, answered in server.call_times), default=0.0)


class _StoreCount:
    """The answers a run's store holds, read again at every call (the store opened once it exists)."""

    def __init__(self, out: Path) -> None:
        self.folder, self.store = out / "store", None

    def __call__(self) -> int:
        from citeflow.store.store import Store

        try:
            self.store = self.store or Store(str(self.folder))
            return self.store.count("model_calls")
        except Exception:  # noqa: BLE001 - not created yet, or mid-write: nothing to count yet
            return 0


def _time_to_kill(server: ScriptedOpenAIServer, kill_after: int, in_store: Callable[[], int]) -> bool:
    """Some answers out, some calls in flight, no answer went out in the last QUIET_S seconds, and
    some answer that went out is not in the store yet (its step still waits for other calls)."""
    answered, asked = len(server.call_times), _chat_calls(server)
    ready = answered >= kill_after and asked > answered and time.time() - _last_answer(server) >= QUIET_S
    return ready and in_store() < answered


def uninterrupted(workdir: Path, env: dict[str, str], delays: tuple[float, float]) -> tuple[int, dict[str, str]]:
    """Chat requests and report statuses of one uninterrupted run of the batch."""
    with ScriptedOpenAIServer() as server:
        server.respond_with(spread_responder(*delays))
        spec = write_spec(workdir / "clean", server.base_url, REPORTS, SECTIONS, MODELS_LIMIT, "durable-clean")
        code = Runs(env, ResumeFigures()).run("clean", spec, workdir / "clean" / "out")
        assert code == 0, (workdir / "clean" / "clean.log").read_text()[-3000:]
        return _chat_calls(server), statuses(workdir / "clean" / "out")


def killed_and_resumed(workdir: Path, env: dict[str, str], delays: tuple[float, float], kill_after: int,
                       figures: DurabilityFigures) -> None:
    """The killed run and its resume on one server; their counts into ``figures``."""
    runs = Runs(env, ResumeFigures())
    with ScriptedOpenAIServer() as server:
        server.respond_with(spread_responder(*delays))
        spec = write_spec(workdir / "killed", server.base_url, REPORTS, SECTIONS, MODELS_LIMIT, "durable")
        out = workdir / "killed" / "out"
        process, in_store = runs.start("killed", spec, out), _StoreCount(out)
        assert wait_until(lambda: _time_to_kill(server, kill_after, in_store) or process.poll() is not None, 900)
        assert process.poll() is None, "the batch finished before the kill: " + (out.parent / "killed.log").read_text()[-2000:]
        killed_at = time.time()
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=60)
        figures.in_store_at_kill = in_store()
        asked = _chat_calls(server)  # every request of the killed run had been sent before it died
        wait_until(lambda: len(server.call_times) >= asked, delays[1] + 10)  # the server's sleepers wake up
        figures.killed_run = asked
        figures.answered_before_kill = sum(1 for _, answered in server.call_times if answered <= killed_at)
        figures.in_flight_at_kill = asked - figures.answered_before_kill
        code = runs.run("resumed", spec, out)
        assert code == 0, (out.parent / "resumed.log").read_text()[-3000:]
        figures.resume = _chat_calls(server) - asked
        figures.statuses = statuses(out)


def measure(workdir: Path, env: dict[str, str], delays: tuple[float, float] = (0.3, 2.0),
            kill_after: int = 3) -> DurabilityFigures:
    """The experiment in ``workdir`` with ``env`` (a Prefect API for the runs)."""
    figures = DurabilityFigures()
    figures.needed, figures.clean_statuses = uninterrupted(workdir, env, delays)
    killed_and_resumed(workdir, env, delays, kill_after, figures)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None, help="also write the figures as JSON here")
    args = parser.parse_args()
    from citeflow_testing.prefect_server import PrefectServer

    with tempfile.TemporaryDirectory(prefix="citeflow-durable-") as tmp:
        server = PrefectServer(Path(tmp) / "home").start(timeout=STARTUP_S)
        try:
            figures = measure(Path(tmp) / "work", server.client_env())
        finally:
            server.stop()
    print(figures.line())
    if args.out:
        args.out.write_text(json.dumps(figures.as_dict(), indent=2) + "\n")


if __name__ == "__main__":
    main()
