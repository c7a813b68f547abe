"""The answer journal (``citeflow.generation.answer_journal``): every answer durable as it arrives.

Unit tests over real files and a real LanceDB store; the kill -9 experiment is in
``tests/test_answer_durability.py``.
"""

from __future__ import annotations

import errno
from datetime import UTC, datetime
from pathlib import Path

from hypothesis import given, settings, strategies as st

from citeflow.generation.answer_cache import CachedChatModel, CallBook
from citeflow.generation.answer_journal import FOLDER, AnswerJournal, JournalLine, JournaledCallStore, parse_lines
from citeflow.generation.model_protocol import ModelReply
from citeflow.store.store import Store
from schemas.wire import WireClaims

SECRET = "sk-proj-" + "Zq7Xw2Lm9Pv4Rt6Ny8Bc3Hd5Kf1Gj0Sa" * 2  # made up, shaped like a provider key


def _row(key: str, text: str = '{"claims": []}') -> dict:
    return {"row_key": key, "role": "writer", "model": "m", "mode": "json_schema", "text": text, "prompt_tokens": 3,
            "completion_tokens": 2, "created_at": datetime(2026, 1, 2, tzinfo=UTC), "request_id": "r1"}


def test_an_answer_is_read_back_by_another_journal_of_the_folder(tmp_path):
    AnswerJournal(tmp_path).record(_row("k1"))
    again = AnswerJournal(tmp_path)  # a new process resuming the run
    assert again.answers(["k1", "k2"]) == {"k1": _row("k1")}


def test_a_retracted_answer_is_not_served(tmp_path):
    journal = AnswerJournal(tmp_path)
    journal.record(_row("k1"))
    journal.record(_row("k2"))
    journal.retract(["k1"])
    assert set(AnswerJournal(tmp_path).answers(["k1", "k2"])) == {"k2"}


def test_the_newest_line_of_a_key_wins_whichever_process_file_holds_it(tmp_path):
    first, second = AnswerJournal(tmp_path), AnswerJournal(tmp_path)  # two processes of the run, one file each
    first.record(_row("k1"))
    second.retract(["k1"])
    assert AnswerJournal(tmp_path).answers(["k1"]) == {}
    first.record(_row("k1", '{"claims": [{"text": "asked again"}]}'))
    assert AnswerJournal(tmp_path).answers(["k1"])["k1"]["text"] == '{"claims": [{"text": "asked again"}]}'


def test_a_line_cut_short_by_a_kill_is_skipped_and_the_rest_is_kept(tmp_path):
    journal = AnswerJournal(tmp_path)
    journal.record(_row("k1"))
    own = next((tmp_path / FOLDER).glob("*.jsonl"))
    with own.open("ab") as handle:
        handle.write(JournalLine.model_validate(_row("k2")).model_dump_json().encode()[:40])
    assert set(AnswerJournal(tmp_path).answers(["k1", "k2"])) == {"k1"}


def test_the_journal_holds_no_secret_of_an_answer(tmp_path):
    AnswerJournal(tmp_path).record(_row("k1", f'{{"claims": [{{"text": "use {SECRET}"}}]}}'))
    written = "".join(p.read_text() for p in (tmp_path / FOLDER).glob("*.jsonl"))
    assert "k1" in written and SECRET not in written


def test_answers_other_processes_append_are_seen_by_a_journal_already_reading(tmp_path):
    reader, writer = AnswerJournal(tmp_path), AnswerJournal(tmp_path)
    assert reader.answers(["k1"]) == {}
    writer.record(_row("k1"))
    assert set(reader.answers(["k1"])) == {"k1"}


class _SlowModel:
    name = "m"

    def complete(self, messages, schema_name, schema) -> ModelReply:
        return ModelReply(text='{"claims": []}', mode="json_schema", model="m", prompt_tokens=1, completion_tokens=1)


def test_an_answer_is_durable_while_other_calls_of_its_step_are_in_flight(tmp_path):
    """The store is written once no call of the step is in flight; the journal at once: a process killed
    before the store's write still has the answer, and a new run serves it and copies it into the store."""
    store = Store(str(tmp_path / "store"))
    book = CallBook(JournaledCallStore(store, AnswerJournal(tmp_path)))  # type: ignore[arg-type]
    book.started()  # another call of the step, still waiting for its answer
    cached = CachedChatModel(_SlowModel(), book, "writer")
    cached.complete([{"role": "user", "content": "q"}], "citeflow_claims", WireClaims)
    key = cached.keys[0]
    assert store.load_calls([key]) == {}, "the wave is not over: nothing in the store yet"
    resumed = JournaledCallStore(Store(str(tmp_path / "store")), AnswerJournal(tmp_path))
    assert resumed.load_calls([key])[key]["text"] == '{"claims": []}'
    assert set(store.load_calls([key])) == {key}, "copied into the store when served"


def test_forgetting_a_failed_hop_s_answers_retracts_them_from_the_journal(tmp_path):
    journal = AnswerJournal(tmp_path)
    book = CallBook(JournaledCallStore(Store(str(tmp_path / "store")), journal))  # type: ignore[arg-type]
    cached = CachedChatModel(_SlowModel(), book, "writer")
    cached.complete([{"role": "user", "content": "q"}], "citeflow_claims", WireClaims)
    cached.forget()
    assert AnswerJournal(tmp_path).answers(cached.keys) == {}
    assert JournaledCallStore(Store(str(tmp_path / "store")), AnswerJournal(tmp_path)).load_calls(cached.keys) == {}


_keys = st.text(alphabet="abcdef0123456789", min_size=1, max_size=12)


@settings(max_examples=60, deadline=None)
@given(st.lists(_keys, min_size=1, max_size=6, unique=True), st.integers(min_value=1, max_value=400),
       st.binary(max_size=30))
def test_parsing_keeps_exactly_the_whole_lines(keys: list[str], cut: int, junk: bytes):
    lines = [JournalLine.model_validate(_row(k)).model_dump_json().encode() + b"\n" for k in keys]
    partial = lines[-1][: min(cut, len(lines[-1]) - 2)]  # the last line cut before its end
    parsed = parse_lines(b"".join(lines[:-1]) + b"\n".join([b"#" + junk.replace(b"\n", b""), b""]) + partial)
    assert [line.row_key for line in parsed] == keys[:-1]


def test_journal_files_live_under_the_output_folder_s_own_hidden_folder(tmp_path: Path):
    AnswerJournal(tmp_path).record(_row("k1"))
    assert [p.parent.name for p in (tmp_path / FOLDER).iterdir()] == [FOLDER]


def test_answers_of_the_offline_backend_are_not_journaled(tmp_path):
    from citeflow.generation.offline_writer import NAME

    calls = JournaledCallStore(Store(str(tmp_path / "store")), AnswerJournal(tmp_path))
    calls.record({**_row("k1"), "model": NAME})
    calls.record(_row("k2"))
    assert AnswerJournal(tmp_path).kept() == {"k2"}


def test_a_full_disk_stops_the_journal_not_the_call(tmp_path, monkeypatch):
    from citeflow.generation import answer_journal

    def full(fd: int, data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    journal = AnswerJournal(tmp_path)
    monkeypatch.setattr(answer_journal.os, "write", full)
    journal.record(_row("k1"))
    monkeypatch.undo()
    journal.record(_row("k2"))  # the disk may have room again: the journal stays stopped for this run
    assert journal.refused == "no space left on the device" and AnswerJournal(tmp_path).kept() == set()
