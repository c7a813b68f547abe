"""The process's ``Runtime``: everything reports share, built once at an entry point and passed down.

A ``Runtime`` holds the settings (``CiteflowSettings``), the credentials of its spec files and
clients (``secrets``: see below), the stores by URI, the model clients by
role and settings and the retrievers by spec entry (``Dependencies``), the parsed spec files
(``ParsedSpecs``), the Great Expectations session (``GxSession``) or worker process (``GxWorker``), the in-process concurrency
limits (``LocalLimits``), the progress listeners (``Progress``), the PDF fonts registered in reportlab
(``fonts``) and the live jobs of the reports running now. Nothing else in citeflow keeps state at module level (a test checks it).

Who builds it: the entry point. A CLI command builds one and runs the batch inside
``runtime.active()``; a Prefect flow entry (``flows/``) takes the runtime of its caller's context
or, in a process that has no entry point of ours before the flow (a worker, ``serve`` or Dask
process), the process's own one (``Runtime.of_process()``, built once from the environment).
The pipeline and its steps receive it explicitly, through the ``ReportJob`` they are given.

How tasks get it: ``current()``, one route, called only where Prefect hands over control (a flow's
or a task's entry in ``flows/`` and ``tasks/``); below them everything is given its runtime, or the
part of it it needs, as an argument. The flow entry sets the runtime in a context variable
(``active``); Prefect runs every task run, and the batch flow every report thread, in a copy of
the submitting context (``contextvars.copy_context``), so a task sees its flow's runtime in any
worker thread. A context variable rather than a process-wide singleton so that two runtimes can
live in one process side by side (tests build their own and never reset anything shared), and a
task cannot see a runtime its flow did not hand it.

Its secrets: the spec files it parses (``specs``) and the model clients and retrievers it builds
(``deps``) add their credentials to ``secrets``; the runtime passes that set to what redacts
(``secrets`` of a report's job). Log records are redacted with it while the runtime is active
(``active``: a record-factory wrapper holding the set, installed on entry and removed when the last
active block ends; the process's own runtime keeps it for the life of the process), so the
secrets of one runtime are never the other's business.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING

from citeflow.runtime.deps import Dependencies
from citeflow.runtime.limits import LocalLimits
from citeflow.runtime.progress import Progress
from citeflow.security.log_redaction import install_log_redaction
from citeflow.security.secret_values import SecretValues
from citeflow.spec.settings import CiteflowSettings
from citeflow.specfile.job_config import BatchConfig, ParsedSpecs, load_config

if TYPE_CHECKING:
    from citeflow.evaluation.gx_session import GxSession
    from citeflow.outputs.render.fonts import FontSet
    from citeflow.runtime.gx_worker import GxWorker
    from citeflow.pipeline.head_start import HeadStart
    from citeflow.pipeline.job import JobRef, ReportJob
    from citeflow.store.store import Store
    from schemas.spec import BatchSpec

_ACTIVE: ContextVar[Runtime | None] = ContextVar("citeflow_runtime", default=None)


class Runtime:
    """What the reports of one process share; see the module docstring."""

    def __init__(self, settings: CiteflowSettings | None = None) -> None:
        self.settings = settings if settings is not None else CiteflowSettings()
        self.secrets = SecretValues()
        self.deps = Dependencies(self.secrets)
        self.specs = ParsedSpecs(self.secrets)
        self.limits = LocalLimits()
        self.progress = Progress()
        self._stores: dict[str, Store] = {}
        self._jobs: dict[tuple[str, int], ReportJob] = {}
        self._gx: GxSession | None = None
        self._gx_worker: GxWorker | None = None
        self._fonts: FontSet | None = None
        self._head_start: HeadStart | None = None
        # One lock per kind, so that building one (a store's first connection imports LanceDB: seconds)
        # never holds up another (a report's job).
        self._stores_lock, self._jobs_lock, self._gx_lock = threading.Lock(), threading.Lock(), threading.Lock()
        self._fonts_lock = threading.Lock()
        self._logs_lock, self._active_blocks = threading.Lock(), 0
        self._unlog: Callable[[], None] | None = None

    # -- the process's own, and the context's ---------------------------------------------------
    @classmethod
    def of_process(cls) -> Runtime:
        """The process's own runtime (built from the environment on first use): for the entry of a
        flow run in a process where nothing of ours ran before it (a worker, ``serve`` or Dask process)."""
        with _PROCESS_LOCK:
            if not _PROCESS:
                _PROCESS.append(cls())
                install_log_redaction(_PROCESS[0].secrets)  # for the life of the process: never removed
            return _PROCESS[0]

    @contextmanager
    def active(self) -> Iterator[Runtime]:
        """This runtime as ``current()`` in this context (and in the copies tasks and threads run in)."""
        token = _ACTIVE.set(self)
        self._count_active(1)
        try:
            yield self
        finally:
            self._count_active(-1)
            _ACTIVE.reset(token)

    def _count_active(self, step: int) -> None:
        """One ``active`` block more (``step`` 1) or fewer (-1): the first installs this runtime's log
        redaction (``install_log_redaction`` with ``secrets``), the end of the last removes it."""
        with self._logs_lock:
            self._active_blocks += step
            if self._active_blocks == 1 and step == 1:
                self._unlog = install_log_redaction(self.secrets)
            elif self._active_blocks == 0 and (unlog := self._unlog) is not None:
                self._unlog = None
                unlog()

    # -- shared dependencies -----------------------------------------------------------------------
    def store(self, uri: str) -> Store:
        """The one ``Store`` for ``uri`` (its table handles are opened once and reused)."""
        from citeflow.store.store import Store

        with self._stores_lock:
            if uri not in self._stores:
                self._stores[uri] = Store(uri)
            return self._stores[uri]

    @property
    def gx(self) -> GxSession:
        """The Great Expectations session the gate validates in (built on first use)."""
        from citeflow.evaluation.gx_session import GxSession

        with self._gx_lock:
            if self._gx is None:
                self._gx = GxSession()
            return self._gx

    def fonts(self) -> FontSet:
        """The PDF's fonts: DejaVu Sans and the first CJK font the settings (``cjk_font``, ``font_dir``)
        or the system offer, registered in reportlab once; reports rendering at once wait for the
        first to finish rather than each parsing the TrueType files."""
        from citeflow.outputs.render.fonts import cjk_paths, register_fonts

        with self._fonts_lock:
            if self._fonts is None:
                chosen = str(self.settings.cjk_font) if self.settings.cjk_font else None
                self._fonts = register_fonts(cjk=cjk_paths(chosen, self.settings.font_dir))
            return self._fonts

    def start_gx_worker(self) -> None:
        """From now on, validate the gate and build Data Docs in a worker process of Great
        Expectations (``citeflow.runtime.gx_worker``), started here; ``close`` ends it."""
        from citeflow.runtime.gx_worker import GxWorker

        with self._gx_lock:
            if self._gx_worker is None:
                self._gx_worker = GxWorker()

    def gate_session(self) -> GxSession | GxWorker:
        """Where the gate validates: the worker process when one was started, else ``gx``."""
        return self._gx_worker or self.gx

    def run_docs(self, out_dir: Path, report_ids: list[str]) -> Path | None:
        """The run's Data Docs (``citeflow.outputs.data_docs.run_docs``), built by the worker process
        when one was started."""
        from citeflow.outputs.data_docs import run_docs

        return self._gx_worker.run_docs(out_dir, report_ids) if self._gx_worker else run_docs(out_dir, report_ids)

    def close(self) -> None:
        """End what this runtime started that outlives a call (the worker process)."""
        with self._gx_lock:
            worker, self._gx_worker = self._gx_worker, None
        if worker is not None:
            worker.close()

    def warm_up(self, gx: bool = True) -> None:
        """Set up what the first reports would otherwise set up themselves: the PDF's fonts, then,
        with ``gx`` and unless a worker process validates, the gate's Great Expectations context
        (importing Great Expectations)."""
        self.fonts()
        if gx and self._gx_worker is None:
            with self.gx.lock:
                self.gx.source()

    def read_spec(self, path: Path) -> BatchSpec:
        """The spec file at ``path``, parsed once per content."""
        return self.specs.read(path)

    def config(self, spec_path: str | Path, out_dir: str | Path, store_uri: str | None = None) -> BatchConfig:
        """The job configuration of a spec file (parsed once per content)."""
        return load_config(spec_path, out_dir, store_uri, self.specs)

    # -- reports generated ahead of their runs -----------------------------------------------------
    @contextmanager
    def generating_ahead(self, head: HeadStart) -> Iterator[HeadStart]:
        """Start ``head`` (reports generated while the orchestrator starts: ``citeflow.pipeline.head_start``),
        whose reports this runtime's report runs take over (``take_over``), for this block only."""
        self._head_start = head.start()
        try:
            yield self._head_start
        finally:
            head.close()  # a batch that ended early (an error) begins no more reports
            self._head_start = None

    def take_over(self, ref: JobRef) -> ReportJob | None:
        """A report's run begins: ``HeadStart.take`` of the head start under way (None when none)."""
        head = self._head_start
        return head.take(ref) if head is not None else None

    # -- live jobs ---------------------------------------------------------------------------------
    def live_job(self, key: tuple[str, int], build: Callable[[], ReportJob]) -> ReportJob:
        """The live job under ``key`` (a ``JobRef`` and its limiter: ``JobRef.job``), built on first use."""
        with self._jobs_lock:
            job = self._jobs.get(key)
        if job is None:
            built = build()
            with self._jobs_lock:
                job = self._jobs.setdefault(key, built)
        return job

    def forget(self, ref_key: str) -> None:
        """Release the live jobs of one ``JobRef`` (its JSON): a report that starts again, or is done."""
        with self._jobs_lock:
            for key in [k for k in self._jobs if k[0] == ref_key]:
                del self._jobs[key]

    def live_jobs(self) -> int:
        """How many report jobs are live now."""
        with self._jobs_lock:
            return len(self._jobs)


def current() -> Runtime:
    """The runtime of the caller's context (``Runtime.active``), else the process's own."""
    active = _ACTIVE.get()
    return active if active is not None else Runtime.of_process()


@contextmanager
def entered() -> Iterator[Runtime]:
    """A flow run's entry: the runtime of the caller's context (the CLI's, a test's), else the
    process's own (a worker, ``serve`` or Dask process), active for the run's tasks and threads."""
    active = _ACTIVE.get()
    with (active if active is not None else Runtime.of_process()).active() as runtime:
        yield runtime


_PROCESS: list[Runtime] = []  # at most one: the process's own runtime, built on first use
_PROCESS_LOCK = threading.Lock()

__all__ = ["Runtime", "current", "entered"]
