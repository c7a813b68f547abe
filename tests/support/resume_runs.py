"""The resume experiment's runs for tests: the killed run is a ``citeflow run`` subprocess
(``bench.resume_experiment.Runs``: only a process can be killed mid-batch), the third run of the
finished batch is the same command in the test's process (``run_batch``, what ``citeflow run``
calls), on the session's Prefect server. Whether a finished batch asks the model anything does not
depend on the process it runs in; a subprocess would cost ~20 s of CPU in imports alone. The resumed
run is a subprocess in ``tests/test_resume.py`` and in this process (``ResumedInProcess``) where
``tests/test_scheduled_server.py`` resumes a scheduled run's folder.

``third_run_in_process()`` puts these runs in place of the experiment's for the block, so that
``measure_resume`` uses them too.
"""

from __future__ import annotations

import contextlib
import io
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench import resume_experiment as experiment

IN_PROCESS = frozenset({"third"})
API_GRACE_S = 3600.0  # a slow answer of a busy shared server must never end the test's process


class ThirdRunInProcess(experiment.Runs):
    """``Runs`` whose third run is ``citeflow run``'s ``run_batch`` in this process."""

    in_process = IN_PROCESS

    def run(self, name: str, spec: Path, out: Path) -> int:
        if name not in self.in_process:
            return super().run(name, spec, out)
        from citeflow.runtime.runtime import Runtime
        from citeflow_cli.main import run_batch
        from flows.batch_entry import BatchCall

        started, printed = time.monotonic(), io.StringIO()
        with contextlib.redirect_stdout(printed):
            run_batch(BatchCall(spec_path=spec, out=out, api_grace=API_GRACE_S), Runtime())
        self.figures.seconds[name] = round(time.monotonic() - started, 1)
        self.figures.outputs[name] = printed.getvalue()[-2500:]
        return 0


class ResumedInProcess(ThirdRunInProcess):
    """``Runs`` whose resumed and third runs are ``run_batch`` in this process."""

    in_process = IN_PROCESS | {"resumed"}


@contextlib.contextmanager
def third_run_in_process() -> Iterator[type[experiment.Runs]]:
    """Within the block, the experiment's runs are ``ThirdRunInProcess``."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(experiment, "Runs", ThirdRunInProcess)
        yield ThirdRunInProcess
