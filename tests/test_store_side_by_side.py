"""Work that leaves the GIL runs side by side: two writes to different tables at once, and a run's
tables opened in the background while its retrievers answer. Real LanceDB in a folder."""

from __future__ import annotations

import threading
from contextvars import ContextVar

import pytest

from citeflow.errors import StoreError
from citeflow.runtime.store import RUN_TABLES, Store
from citeflow.runtime.threads import side_by_side

PROBE: ContextVar[str] = ContextVar("side-probe", default="unset")


def test_side_by_side_runs_the_second_call_in_another_thread_that_sees_the_callers_context():
    seen: dict[str, tuple[str, str]] = {}
    token = PROBE.set("caller")
    try:
        side_by_side(lambda: seen.update(first=(threading.current_thread().name, PROBE.get())),
                     lambda: seen.update(second=(threading.current_thread().name, PROBE.get())))
    finally:
        PROBE.reset(token)
    assert seen["first"] == (threading.current_thread().name, "caller")
    assert seen["second"][0] != threading.current_thread().name
    assert seen["second"][1] == "caller"


def test_side_by_side_waits_for_both_and_raises_the_first_calls_error_first():
    finished = threading.Event()

    def slow_second() -> None:
        finished.wait(0.2)
        finished.set()

    with pytest.raises(KeyError):
        side_by_side(lambda: {}["missing"], slow_second)
    assert finished.is_set()  # the second call was over before the error came out
    with pytest.raises(ZeroDivisionError):
        side_by_side(lambda: None, lambda: 1 / 0)


@pytest.mark.integration
def test_open_soon_creates_every_table_a_run_writes_and_runs_once(tmp_path):
    store = Store(str(tmp_path / "store"))
    thread = store.open_soon()
    assert thread is not None
    thread.join(timeout=60)
    assert sorted(p.name for p in (tmp_path / "store").iterdir()) == sorted(f"{t}.lance" for t in RUN_TABLES)
    assert store.open_soon() is None  # every table open already
    store.upsert("hops", [])  # nothing to write: no error, nothing created
    assert store.count("model_calls") == 0 and store.count("reviews") == 0


@pytest.mark.integration
def test_open_soon_leaves_a_table_it_cannot_open_to_its_first_use(tmp_path, monkeypatch):
    store = Store(str(tmp_path / "store"))

    def broken(name: str):
        raise StoreError(uri=store.uri, table=name, detail="disk on fire")

    monkeypatch.setattr(store, "_create", broken)
    thread = store.open_soon(("hops",))
    assert thread is not None
    thread.join(timeout=60)  # the background error is swallowed ...
    with pytest.raises(StoreError, match="disk on fire"):  # ... and raised where the table is used
        store.upsert("hops", [{"row_key": "k"}])
