"""The ADK dialect: thoughts, function calls paired with their responses by id, each once."""

from __future__ import annotations

from a2a_progress.dialects import DialectReading, TurnDialects, fallback_text
from a2a_progress.dialects.base import MAX_CALLS, MAX_PARTS
from a2a_progress.envelope import Envelope, Kind, Status, decode, encode
from dialects.fixtures import (
    ADK_EVENT_METADATA,
    adk_call,
    adk_long_running_call,
    adk_response,
    adk_thought,
    data_part,
    read_parts,
    text_part,
)


def adk() -> TurnDialects:
    return TurnDialects(frozenset({"adk"}))


def read(turn: TurnDialects, *parts: object, artifact: bool = False) -> DialectReading:
    reading = read_parts(turn, list(parts), metadata=[ADK_EVENT_METADATA], artifact=artifact)
    assert reading is not None
    assert reading.dialect == "adk"
    return reading


def summary(envelopes: tuple[Envelope, ...]) -> list[tuple[str, str, str | None, str | None]]:
    return [(e.kind.value, e.status.value, e.stream_key, e.content or e.tool) for e in envelopes]


def test_thoughts_calls_and_responses_become_envelopes_paired_by_id() -> None:
    turn = adk()
    first = read(
        turn,
        adk_thought("The deploy failed: find the stage first."),
        adk_call("adk-1", "get_deploy_status", {"deploy": 4812}),
        adk_call("adk-2", "search_logs", {"query": "refused"}),
    )
    assert summary(first.envelopes) == [
        ("thinking", "running", None, "The deploy failed: find the stage first."),
        ("tool_call", "running", "adk-1", "get_deploy_status"),
        ("tool_call", "running", "adk-2", "search_logs"),
    ]
    second = read(
        turn,
        adk_response("adk-2", "search_logs", {"lines": ["connection refused"]}),
        adk_response("adk-1", "get_deploy_status", {"stage": "canary"}),
    )
    assert summary(second.envelopes) == [
        ("tool_call", "done", "adk-2", "search_logs"),
        ("tool_call", "done", "adk-1", "get_deploy_status"),
    ]
    for envelope in first.envelopes[1:] + second.envelopes:
        assert envelope.tool_call_id == envelope.stream_key
    seqs = [e.seq for e in first.envelopes + second.envelopes]
    assert seqs == sorted(set(seqs))


def test_a_response_with_an_error_closes_the_call_aborted_with_its_text() -> None:
    turn = adk()
    read(turn, adk_call("c1", "query_metrics"), adk_call("c2", "run_tests"))
    reading = read(
        turn,
        adk_response("c1", "query_metrics", {"error": "metrics backend timed out after 1.0s"}),
        adk_response("c2", "run_tests", {"status": "error", "error_message": "2 failed"}),
    )
    aborted = reading.envelopes
    assert [e.status for e in aborted] == [Status.ABORTED, Status.ABORTED]
    assert aborted[0].payload["reason"] == "metrics backend timed out after 1.0s"
    assert aborted[1].payload["reason"] == "2 failed"
    assert fallback_text(aborted[0]) == (
        "Tool query_metrics aborted: metrics backend timed out after 1.0s"
    )


def test_an_empty_error_or_a_plain_status_is_success() -> None:
    turn = adk()
    read(turn, adk_call("c1", "lookup"), adk_call("c2", "lookup"))
    reading = read(
        turn,
        adk_response("c1", "lookup", {"error": "", "result": 3}),
        adk_response("c2", "lookup", {"status": "success"}),
    )
    assert [e.status for e in reading.envelopes] == [Status.DONE, Status.DONE]


def test_replayed_calls_and_responses_are_consumed_once() -> None:
    turn = adk()
    call, response = adk_call("c1", "search"), adk_response("c1", "search", {"n": 1})
    assert len(read(turn, call).envelopes) == 1
    assert read(turn, call).envelopes == ()  # a resubscribe snapshot repeats history
    assert len(read(turn, response).envelopes) == 1
    assert read(turn, response).envelopes == ()
    assert read(turn, call).envelopes == ()  # a call never reopens once answered


def test_a_response_without_its_call_still_ends_one_call() -> None:
    reading = read(adk(), adk_response("late", "fetch", {"ok": True}))
    assert summary(reading.envelopes) == [("tool_call", "done", "late", "fetch")]


def test_older_adk_type_key_and_long_running_flag() -> None:
    turn = adk()
    reading = read_parts(
        turn, [adk_call("old-1", "legacy_tool", key="type")], metadata=[], artifact=False
    )
    assert reading is not None
    assert summary(reading.envelopes) == [("tool_call", "running", "old-1", "legacy_tool")]
    long_running = read(turn, adk_long_running_call("lr-1", "approve_deploy"))
    assert long_running.envelopes[0].payload["long_running"] is True
    # A long-running tool's interim answer keeps it running; the final one ends it.
    assert read(turn, adk_response("lr-1", "approve_deploy", {"status": "pending"})).envelopes == ()
    final = read(turn, adk_response("lr-1", "approve_deploy", {"status": "approved"}))
    assert summary(final.envelopes) == [("tool_call", "done", "lr-1", "approve_deploy")]


def test_plain_text_is_progress_in_status_updates_but_not_in_artifacts() -> None:
    turn = adk()
    status = read(turn, text_part("Checking the canary pods."))
    assert summary(status.envelopes) == [("text", "running", None, "Checking the canary pods.")]
    artifact = read(turn, adk_thought("why"), text_part("The answer."), artifact=True)
    assert summary(artifact.envelopes) == [("thinking", "running", None, "why")]


def test_updates_with_nothing_of_adk_are_left_to_the_caller() -> None:
    turn = adk()
    assert read_parts(turn, [text_part("plain agent text")], metadata=[]) is None
    assert read_parts(turn, [data_part({"id": "x", "name": "y"}, {"kind": "other"})]) is None


def test_every_envelope_survives_the_wire_codec() -> None:
    turn = adk()
    reading = read(
        turn,
        adk_thought("t"),
        adk_call("c1", "a"),
        adk_response("c1", "a", {"error": {"message": "nested failure", "code": 7}}),
    )
    assert reading.envelopes[-1].payload["reason"] == "nested failure"
    for envelope in reading.envelopes:
        assert decode(encode(envelope)) == envelope


def test_junk_parts_are_ignored_and_bounded() -> None:
    turn = adk()
    junk = [
        data_part({"name": "no id"}, {"adk_type": "function_call"}),
        data_part({"id": 7, "name": "numeric id"}, {"adk_type": "function_call"}),
        data_part(["a", "list"], {"adk_type": "function_call"}),
        data_part("a string", {"adk_type": "function_response"}),
        data_part({"id": "r", "response": "not an object"}, {"adk_type": "function_response"}),
        text_part("   ", {"adk_thought": True}),
        data_part({"id": "z" * 10_000, "name": "n" * 10_000}, {"adk_type": "function_call"}),
    ]
    reading = read(turn, *junk)
    kinds = [(e.kind, e.status) for e in reading.envelopes]
    assert kinds == [(Kind.TOOL_CALL, Status.DONE), (Kind.TOOL_CALL, Status.RUNNING)]
    assert len(reading.envelopes[1].stream_key or "") == 256
    assert len(reading.envelopes[1].tool or "") == 256
    # Past MAX_PARTS parts of one update nothing is read.
    many = [adk_call(f"m{i}", "t") for i in range(MAX_PARTS + 50)]
    assert len(read(adk(), *many).envelopes) == MAX_PARTS


def test_a_turn_tracks_at_most_max_calls() -> None:
    turn = adk()
    opened = 0
    for batch in range(0, MAX_CALLS + 200, MAX_PARTS):
        parts = [adk_call(f"c{batch + i}", "t") for i in range(MAX_PARTS)]
        opened += len(read(turn, *parts).envelopes)
    assert opened == MAX_CALLS
    # Answers to calls past the cap open nothing either.
    assert read(turn, adk_response("c999999", "t", {})).envelopes == ()
