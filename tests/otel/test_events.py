"""Span events: which envelope kinds become which events, their attributes, the span they land
on (the open tool span of their stream key, else the call or execution span), and degraded
updates."""

import pytest
from otel_support import (
    Telemetry,
    attrs,
    call,
    complete,
    done,
    env,
    error,
    event_names,
    events,
    output,
    raw,
    serving,
    start,
    text,
    thinking,
    wire,
)

from a2a_progress.envelope import HARD_LIMIT_BYTES
from a2a_progress.otel import conventions as conv

CALLER, CALLEE = conv.OBSERVER_CALLER, conv.OBSERVER_CALLEE
SIDES = (CALLER, CALLEE)


async def test_thinking_text_and_error_are_events_of_the_turn(telemetry: Telemetry) -> None:
    steps = [thinking("let me see"), text("working on it"), error("quota low"), complete()]
    async with serving(steps) as served:
        await call(served.card_for("jsonrpc"))
    for observer in SIDES:
        turn = telemetry.turn_span(observer)
        assert event_names(turn) == [
            "a2a.progress.thinking",
            "a2a.progress.text",
            "a2a.progress.error",
        ]
        assert events(turn) == [
            {
                "a2a.progress.seq": 1,
                "a2a.progress.content.size": 10,
                "a2a.progress.content": "let me see",
            },
            {
                "a2a.progress.seq": 2,
                "a2a.progress.content.size": 13,
                "a2a.progress.content": "working on it",
            },
            {
                "a2a.progress.seq": 3,
                "a2a.progress.content.size": 9,
                "a2a.progress.content": "quota low",
            },
        ]


async def test_tool_output_is_an_event_of_its_tool_span(telemetry: Telemetry) -> None:
    steps = [
        start("tail", "t1"),
        output("t1", "line 1\n"),
        text("meanwhile"),
        output("t1", "line 2\n"),
        done("t1"),
        complete(),
    ]
    async with serving(steps, enable_output=True) as served:
        await call(served.card_for("grpc"))
    for observer in SIDES:
        tool = telemetry.tool_span(observer)
        assert event_names(tool) == ["a2a.progress.output", "a2a.progress.output"]
        assert [(e[conv.SEQ], e[conv.STREAM_KEY], e[conv.CONTENT]) for e in events(tool)] == [
            (2, "t1", "line 1\n"),
            (4, "t1", "line 2\n"),
        ]
        # Text on another stream (the default one) stays on the turn span.
        assert events(telemetry.turn_span(observer)) == [
            {
                "a2a.progress.seq": 3,
                "a2a.progress.content.size": 9,
                "a2a.progress.content": "meanwhile",
            }
        ]


async def test_events_follow_the_open_tool_of_their_stream_key(telemetry: Telemetry) -> None:
    steps = [
        env("tool_call", 10, stream_key="k1", tool="browse"),
        env("thinking", 11, stream_key="k1", text="inside k1"),
        env("error", 12, stream_key="k2", message="k2 has no tool"),
        env("tool_call", 13, "done", stream_key="k1", tool="browse"),
        env("text", 14, stream_key="k1", text="k1 is over"),
        complete(),
    ]
    async with serving(steps) as served:
        await call(served.card_for("rest"))
    for observer in SIDES:
        tool = telemetry.tool_span(observer)
        assert events(tool) == [
            {
                "a2a.progress.seq": 11,
                "a2a.progress.stream_key": "k1",
                "a2a.progress.content.size": 9,
                "a2a.progress.content": "inside k1",
            }
        ]
        assert event_names(tool) == ["a2a.progress.thinking"]
        turn = telemetry.turn_span(observer)
        assert event_names(turn) == ["a2a.progress.error", "a2a.progress.text"]
        assert [(e[conv.SEQ], e[conv.STREAM_KEY]) for e in events(turn)] == [
            (12, "k2"),
            (14, "k1"),
        ]


async def test_an_error_envelope_that_aborts_its_tool(telemetry: Telemetry) -> None:
    steps = [
        env("tool_call", 1, stream_key="k", tool="deploy"),
        env("error", 2, "aborted", stream_key="k", message="rollout failed"),
        complete(),
    ]
    async with serving(steps) as served:
        await call(served.card_for("jsonrpc"))
    for observer in SIDES:
        tool = telemetry.tool_span(observer)
        assert [e[conv.CONTENT] for e in events(tool, "a2a.progress.error")] == ["rollout failed"]
        assert attrs(tool)[conv.END_REASON] == "aborted"
        assert attrs(tool)[conv.SEQ_LAST] == 2


@pytest.mark.parametrize(
    "tfrs",
    [
        None,  # a plain-text update, as before the protocol
        "{not json",
        wire("thinking", 1, version=2, text="from the future"),
        wire("telepathy", 1, text="unknown kind"),
        wire("thinking", 1, "maybe", text="unknown status"),
        wire("thinking", 1.5, text="float seq"),
        wire("tool_call", 1),  # no tool
        '["a", "list"]',
        "x" * (HARD_LIMIT_BYTES + 1),  # oversize
    ],
    ids=[
        "none",
        "not-json",
        "v2",
        "bad-kind",
        "bad-status",
        "bad-seq",
        "bad-payload",
        "list",
        "oversize",
    ],
)
async def test_an_update_without_a_valid_envelope_degrades_to_text(
    telemetry: Telemetry, tfrs: str | None
) -> None:
    async with serving([raw(tfrs, "the fallback text"), complete()]) as served:
        await call(served.card_for("jsonrpc"))
    for observer in SIDES:
        turn = telemetry.turn_span(observer)
        assert event_names(turn) == ["a2a.progress.text"]
        assert events(turn) == [
            {
                "a2a.progress.degraded": True,
                "a2a.progress.content.size": 17,
                "a2a.progress.content": "the fallback text",
            }
        ]
        assert telemetry.tool_spans(observer) == []


async def test_a_degraded_update_inside_a_tool_stays_on_the_turn(telemetry: Telemetry) -> None:
    steps = [start("search", "s1"), raw(None, "plain progress"), done("s1"), complete()]
    async with serving(steps) as served:
        await call(served.card_for("grpc", v0_3=True))
    for observer in SIDES:
        assert events(telemetry.tool_span(observer)) == []
        assert events(telemetry.turn_span(observer)) == [
            {
                "a2a.progress.degraded": True,
                "a2a.progress.content.size": 14,
                "a2a.progress.content": "plain progress",
            }
        ]


async def test_tool_call_envelopes_are_spans_not_events(telemetry: Telemetry) -> None:
    async with serving([start("a", "1"), done("1"), start("b", "2"), done("2"), complete()]) as s:
        await call(s.card_for("rest", v0_3=True))
    for observer in SIDES:
        assert telemetry.turn_span(observer).events == ()
        assert [tool.name for tool in telemetry.tool_spans(observer)] == [
            "execute_tool a",
            "execute_tool b",
        ]
        assert all(tool.events == () for tool in telemetry.tool_spans(observer))
