"""Where the callee's announcement of its tool span (``tfrs.span``) rides on the wire.

In the metadata of the status update event that opens the call, beside the agent's own keys,
never in a Part's (a2a-sdk copies every status message with the task's history on each later
update; an event's metadata is merged into one task-level map). A caller still reads it where
a2a-progress 0.2.x callees wrote it, beside the envelope in the Part's metadata, and never from
a Task: the map a2a-sdk merged there holds the last call's announcement, whatever the Task says.
"""

import asyncio
import logging

import pytest
from a2a.types import Part, StreamResponse
from otel_support import (
    Telemetry,
    attrs,
    call,
    complete,
    done,
    env,
    reached,
    serving,
    span_id,
    start,
    subscribe_midway,
    wait,
    wire,
)

from a2a_progress.carrier import TFRS_KEY
from a2a_progress.otel import bridge
from a2a_progress.otel import conventions as conv
from a2a_progress.otel.announce import AGENTS_OWN_KEPT, announced_value, traceparent
from a2a_progress.serving import Transport
from support.scripted import Step, parts

CALLER, CALLEE = conv.OBSERVER_CALLER, conv.OBSERVER_CALLEE
TRANSPORTS: list[Transport] = ["jsonrpc", "rest", "grpc"]
# A span context some other process announced (a 0.2.x callee, or the agent itself).
ELSEWHERE = "00-" + "a" * 32 + "-" + "b" * 16 + "-01"


def opening(key: str, tool: str, **metadata: str) -> Part:
    """An envelope Part that opens the tool call ``key`` (and ``metadata`` beside it)."""
    envelope = wire("tool_call", 1, stream_key=key, tool=tool)
    return Part(text=f"{tool} running", metadata={TFRS_KEY: envelope, **metadata})


def closing(key: str, tool: str, seq: int = 2) -> Step:
    return env("tool_call", seq, "done", stream_key=key, tool=tool)


def updates(stream: list[StreamResponse]) -> list[StreamResponse]:
    return [event for event in stream if event.WhichOneof("payload") == "status_update"]


def linked(span: object) -> list[tuple[int, int]]:
    return [(link.context.trace_id, link.context.span_id) for link in span.links]  # type: ignore[attr-defined]


def elsewhere() -> tuple[int, int]:
    context = announced_value(ELSEWHERE)
    assert context is not None
    return context.trace_id, context.span_id


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_the_announcement_rides_in_the_opening_events_metadata(
    telemetry: Telemetry, transport: Transport
) -> None:
    steps = [start("search", "c1"), done("c1"), start("fetch", "f1"), done("f1"), complete()]
    async with serving(steps) as served:
        stream = await call(served.card_for(transport))
    callee = telemetry.tool_spans(CALLEE)
    announced = [
        dict(event.status_update.metadata)
        for event in updates(stream)
        if event.status_update.HasField("metadata")
    ]
    expected = [{conv.WIRE_TOOL_SPAN: traceparent(span.context)} for span in callee]  # type: ignore[arg-type]
    # The first update also announces the callee's turn span (test_turn_announcement.py).
    expected[0][conv.WIRE_TURN_SPAN] = traceparent(telemetry.turn_span(CALLEE).context)  # type: ignore[arg-type]
    assert announced == expected
    for event in updates(stream):
        for part in event.status_update.status.message.parts:
            assert conv.WIRE_TOOL_SPAN not in part.metadata
            assert conv.WIRE_TURN_SPAN not in part.metadata
    # ... and the caller's mirrors link to the callee's spans, read there.
    mirrors = telemetry.tool_spans(CALLER)
    assert [attrs(mirror)[conv.MIRROR] for mirror in mirrors] == [True, True]
    assert [linked(mirror) for mirror in mirrors] == [
        [(span.context.trace_id, span_id(span))]  # type: ignore[union-attr]
        for span in callee
    ]


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("beside", [[], [Part(text="and a plain Part")]], ids=["alone", "two"])
async def test_a_0_2_callee_announcing_in_the_part_is_still_linked(
    telemetry: Telemetry, transport: Transport, beside: list[Part]
) -> None:
    # A callee that writes its updates the way a2a-progress 0.2.x did (this process's callee
    # side not instrumented): the announcement beside the envelope, in the Part's metadata. An
    # envelope Part alone is read without a view, one among others through the event's view.
    telemetry.instrument(sides="caller")
    steps = [
        parts([opening("s1", "search", **{conv.WIRE_TOOL_SPAN: ELSEWHERE}), *beside]),
        closing("s1", "search"),
        complete(),
    ]
    async with serving(steps) as served:
        await call(served.card_for(transport))
    mirror = telemetry.tool_span(CALLER)
    assert attrs(mirror)[conv.MIRROR] is True
    assert conv.GEN_AI_OPERATION_NAME not in attrs(mirror)
    assert linked(mirror) == [elsewhere()]


async def test_the_agents_own_event_metadata_goes_on_beside_the_announcement(
    telemetry: Telemetry, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger=bridge.__name__)
    steps = [
        parts([opening("s1", "search")], metadata={"agent.note": "mine"}),
        closing("s1", "search"),
        # An agent that announces a span itself (e.g. it relays another agent's updates):
        # its value goes on as it set it, never overwritten, and the bridge says so once.
        parts([opening("f1", "fetch")], metadata={conv.WIRE_TOOL_SPAN: ELSEWHERE}),
        closing("f1", "fetch", 3),
        parts([opening("g1", "grep")], metadata={conv.WIRE_TOOL_SPAN: ELSEWHERE}),
        closing("g1", "grep", 4),
        complete(),
    ]
    async with serving(steps) as served:
        stream = await call(served.card_for("jsonrpc"))
    search = telemetry.tool_spans(CALLEE)[0]
    assert [
        dict(event.status_update.metadata)
        for event in updates(stream)
        if event.status_update.HasField("metadata")
    ] == [
        {
            "agent.note": "mine",
            conv.WIRE_TOOL_SPAN: traceparent(search.context),  # type: ignore[arg-type]
            conv.WIRE_TURN_SPAN: traceparent(telemetry.turn_span(CALLEE).context),  # type: ignore[arg-type]
        },
        {conv.WIRE_TOOL_SPAN: ELSEWHERE},
        {conv.WIRE_TOOL_SPAN: ELSEWHERE},
    ]
    warnings = [r.getMessage() for r in caplog.records if AGENTS_OWN_KEPT in r.getMessage()]
    assert len(warnings) == 1
    # The caller takes the agent at its word.
    assert [linked(mirror) for mirror in telemetry.tool_spans(CALLER)[1:]] == [[elsewhere()]] * 2


async def test_a_tasks_merged_metadata_announces_nothing(telemetry: Telemetry) -> None:
    # The caller subscribes mid-call: its first event is the task, whose status message opened
    # the call and whose metadata a2a-sdk merged from every update's, the announcement included.
    # That map holds the last call's, not necessarily this message's: it is never read, and the
    # caller's span of a call it first sees in a Task counts (as it would with no callee span).
    started, gate = asyncio.Event(), asyncio.Event()
    steps = [start("search", "c1"), reached(started), wait(gate), done("c1"), complete()]
    async with serving(steps) as served:
        _, subscribed = await subscribe_midway(served.card_for("jsonrpc"), started, gate)
    snapshot = subscribed[0].task
    callee = telemetry.tool_span(CALLEE)
    assert snapshot.metadata[conv.WIRE_TOOL_SPAN] == traceparent(callee.context)  # type: ignore[arg-type]
    mine = telemetry.tool_span(CALLER)
    assert mine.links == ()
    assert attrs(mine)[conv.GEN_AI_OPERATION_NAME] == conv.OPERATION_EXECUTE_TOOL
