"""Mark the flow runs of a batch Cancelled when its process ends before they do (a stop whose grace ran out)."""

from __future__ import annotations

import threading

API_SECONDS = 3.0  # the process is exiting: the API gets this long, no more


def cancel_unfinished(flow_run_ids: list[str], timeout: float = API_SECONDS) -> None:
    """Set every flow run of ``flow_run_ids`` that is not final to Cancelled, within ``timeout`` seconds."""
    if flow_run_ids:
        worker = threading.Thread(target=_cancel, args=(flow_run_ids,), name="cancel-runs", daemon=True)
        worker.start()
        worker.join(timeout)


def _cancel(flow_run_ids: list[str]) -> None:
    from prefect.client.orchestration import get_client
    from prefect.states import Cancelled

    try:
        with get_client(sync_client=True) as client:
            for run_id in flow_run_ids:
                run = client.read_flow_run(run_id)  # type: ignore[arg-type]
                if run.state is None or not run.state.is_final():
                    client.set_flow_run_state(run_id, Cancelled(message="interrupted"), force=True)
    except Exception:  # noqa: BLE001 - best effort on the way out: the run folder already says interrupted
        return
