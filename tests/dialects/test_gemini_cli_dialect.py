"""The Gemini CLI dialect: whole ToolCall objects resent on every change, consumed once."""

from __future__ import annotations

from a2a_progress.dialects import DialectReading, TurnDialects
from a2a_progress.dialects.base import MAX_CALLS, MAX_TEXT_BYTES
from a2a_progress.envelope import Kind, Status, utf8_size
from dialects.fixtures import (
    data_part,
    gemini_metadata,
    gemini_server_tool_call,
    gemini_thought,
    gemini_tool_call,
    read_parts,
    struct,
    text_part,
)


def gemini() -> TurnDialects:
    return TurnDialects(frozenset({"gemini-cli"}))


def read(turn: TurnDialects, *parts: object, kind: str = "TOOL_CALL_UPDATE") -> DialectReading:
    reading = read_parts(turn, list(parts), metadata=[gemini_metadata(kind)])
    assert reading is not None
    assert reading.dialect == "gemini-cli"
    return reading


def shape(reading: DialectReading) -> list[tuple[str, str, str | None]]:
    return [(e.kind.value, e.status.value, e.content) for e in reading.envelopes]


def test_a_tool_call_lifecycle_with_live_output_chunks_of_only_what_is_new() -> None:
    turn = gemini()
    assert shape(read(turn, gemini_tool_call("t1", "PENDING"))) == [("tool_call", "running", None)]
    assert shape(read(turn, gemini_tool_call("t1", "EXECUTING"))) == []
    assert shape(read(turn, gemini_tool_call("t1", "EXECUTING", live="collected 4 items\n"))) == [
        ("tool_output_append", "running", "collected 4 items\n")
    ]
    # Resent whole with nothing new: consumed once.
    assert shape(read(turn, gemini_tool_call("t1", "EXECUTING", live="collected 4 items\n"))) == []
    grown = "collected 4 items\n..F.\n"
    assert shape(read(turn, gemini_tool_call("t1", "EXECUTING", live=grown))) == [
        ("tool_output_append", "running", "..F.\n")
    ]
    done = read(turn, gemini_tool_call("t1", "SUCCEEDED", live=grown, output="3 passed"))
    assert shape(done) == [("tool_call", "done", None)]
    assert done.envelopes[0].stream_key == "t1"
    assert done.envelopes[0].tool == "run_shell_command"
    # The final state resent after the end changes nothing.
    assert shape(read(turn, gemini_tool_call("t1", "SUCCEEDED", live=grown))) == []


def test_failed_and_cancelled_close_the_call_aborted_with_the_error() -> None:
    turn = gemini()
    read(turn, gemini_tool_call("a", "EXECUTING"), gemini_tool_call("b", "PENDING"))
    failed = read(turn, gemini_tool_call("a", "FAILED", error="exit status 2"))
    assert [(e.status, e.payload.get("reason")) for e in failed.envelopes] == [
        (Status.ABORTED, "exit status 2")
    ]
    cancelled = read(turn, gemini_tool_call("b", "CANCELLED"))
    assert [(e.status, e.payload.get("reason")) for e in cancelled.envelopes] == [
        (Status.ABORTED, "cancelled")
    ]


def test_a_call_first_seen_finished_opens_and_closes_with_its_result() -> None:
    reading = read(gemini(), gemini_tool_call("x", "SUCCEEDED", output="wrote 2 files"))
    assert shape(reading) == [
        ("tool_call", "running", None),
        ("tool_output_append", "running", "wrote 2 files"),
        ("tool_call", "done", None),
    ]
    seqs = [e.seq for e in reading.envelopes]
    assert seqs == sorted(set(seqs))


def test_replaced_output_is_shown_whole_and_camel_case_fields_are_read() -> None:
    turn = gemini()
    read(turn, gemini_tool_call("c", "EXECUTING", live="50%", camel=True))
    assert shape(read(turn, gemini_tool_call("c", "EXECUTING", live="60%", camel=True))) == [
        ("tool_output_append", "running", "60%")
    ]


def test_thoughts_text_and_the_implementation_metadata_key() -> None:
    turn = gemini()
    thought = read(turn, gemini_thought("Planning", "Run the tests first."), kind="THOUGHT")
    assert shape(thought) == [("thinking", "running", "Planning\nRun the tests first.")]
    text = read(turn, text_part("All tests pass."), kind="TEXT_CONTENT")
    assert shape(text) == [("text", "running", "All tests pass.")]
    server = read_parts(
        turn,
        [gemini_tool_call("s1", "EXECUTING")],
        metadata=[struct({"coderAgent": {"kind": "tool-call-update"}})],
    )
    assert server is not None
    assert [(e.kind, e.stream_key) for e in server.envelopes] == [(Kind.TOOL_CALL, "s1")]
    state = read(turn, kind="STATE_CHANGE")
    assert state.envelopes == ()


def test_updates_without_the_extension_metadata_are_not_gemini() -> None:
    turn = gemini()
    assert read_parts(turn, [gemini_tool_call("t", "EXECUTING")], metadata=[]) is None
    assert read_parts(turn, [text_part("hi")], metadata=[struct({"other": {"kind": "x"}})]) is None


def test_junk_and_oversize_output_are_bounded() -> None:
    turn = gemini()
    junk = read(
        turn,
        data_part({"tool_call_id": "", "status": "EXECUTING"}),
        data_part({"tool_call_id": "n", "status": "BOGUS"}),
        data_part({"tool_call_id": "m"}),
        data_part({"tool_call_id": ["x"], "status": "EXECUTING"}),
        data_part({"subject": 5}),
        data_part(42),
    )
    assert junk.envelopes == ()
    huge = "line\n" * 200_000  # ~1 MB of live output in one update
    reading = read(turn, gemini_tool_call("big", "EXECUTING", live=huge))
    chunks = [e for e in reading.envelopes if e.kind is Kind.TOOL_OUTPUT_APPEND]
    assert 1 <= len(chunks) <= 8
    assert all(utf8_size(e.content or "") <= MAX_TEXT_BYTES for e in chunks)
    # What was cut is never re-sent: the next resend adds nothing.
    assert read(turn, gemini_tool_call("big", "EXECUTING", live=huge)).envelopes == ()


def test_a_turn_tracks_at_most_max_calls() -> None:
    turn = gemini()
    opened = 0
    for batch in range(0, MAX_CALLS + 100, 50):
        parts = [gemini_tool_call(f"c{batch + i}", "EXECUTING") for i in range(50)]
        opened += len(read(turn, *parts).envelopes)
    assert opened == MAX_CALLS


def test_the_servers_own_tool_call_objects_are_read_too() -> None:
    turn = gemini()
    meta = [struct({"coderAgent": {"kind": "tool-call-update"}})]

    def read_server(part: object) -> list[tuple[str, str, str | None]]:
        reading = read_parts(turn, [part], metadata=meta)
        assert reading is not None
        return [(e.kind.value, e.status.value, e.content) for e in reading.envelopes]

    assert read_server(gemini_server_tool_call("s1", "scheduled")) == [
        ("tool_call", "running", None)
    ]
    assert read_server(gemini_server_tool_call("s1", "executing", live="a\n")) == [
        ("tool_output_append", "running", "a\n")
    ]
    assert read_server(gemini_server_tool_call("s1", "executing", live="a\n")) == []
    assert read_server(gemini_server_tool_call("s1", "success", result="done: 2 files")) == [
        ("tool_call", "done", None)
    ]
    failed = read_parts(
        turn,
        [gemini_server_tool_call("s2", "error", name="read_file", error="ENOENT: no such file")],
        metadata=meta,
    )
    assert failed is not None
    assert [(e.tool, e.status, e.payload.get("reason")) for e in failed.envelopes] == [
        ("read_file", Status.RUNNING, None),
        ("read_file", Status.ABORTED, "ENOENT: no such file"),
    ]
