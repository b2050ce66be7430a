"""Instrumenting is idempotent and undoable, never changes what agents send and receive, and an
internal bridge failure is logged once while the agent and its caller carry on."""

import json
import logging
import re

import pytest
from a2a.types import StreamResponse, TaskState
from google.protobuf import json_format
from otel_support import (
    Telemetry,
    abort,
    call,
    complete,
    done,
    env,
    envelope_of,
    error,
    output,
    raw,
    serving,
    start,
    text,
    thinking,
)

from a2a_progress.otel import A2AProgressInstrumentor, bridge
from a2a_progress.otel import conventions as conv
from a2a_progress.otel.announce import traceparent
from a2a_progress.otel.bridge import Bridge
from a2a_progress.otel.metrics import BridgeMetrics
from a2a_progress.otel.turn import TurnTelemetry
from a2a_progress.serving import Transport

CALLER, CALLEE = conv.OBSERVER_CALLER, conv.OBSERVER_CALLEE
STEPS = [
    thinking("plan"),
    start("search", "c1"),
    output("c1", "result line\n"),
    text("progress"),
    done("c1"),
    start("fetch", "c2"),
    abort("c2", "gone"),
    error("soft failure"),
    raw(None, "a plain update"),
    raw("{broken", "a broken envelope"),
    env("tool_call", 99, "done", stream_key="late", tool="late"),
    env("thinking", 2, text="a duplicate seq"),
    complete("the answer"),
]
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_TIMESTAMP = re.compile(r'"\d{4}-\d\d-\d\dT[^"]*"')


def normalized(stream: list[StreamResponse]) -> list[str]:
    """The events as JSON, with the ids and times that differ from run to run masked."""
    return [
        _TIMESTAMP.sub('"<time>"', _UUID.sub("<id>", json.dumps(json_format.MessageToDict(e))))
        for e in stream
    ]


def bridge_errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        record.getMessage()
        for record in caplog.records
        if record.name == bridge.__name__ and "telemetry error" in record.getMessage()
    ]


async def run(transport: Transport = "jsonrpc") -> list[StreamResponse]:
    async with serving(STEPS, enable_output=True) as served:
        return await call(served.card_for(transport))


async def test_instrumenting_twice_changes_nothing(telemetry: Telemetry) -> None:
    A2AProgressInstrumentor().instrument(
        tracer_provider=telemetry.tracer_provider, meter_provider=telemetry.meter_provider
    )
    await run()
    assert len(telemetry.turn_spans(CALLER)) == len(telemetry.turn_spans(CALLEE)) == 1
    assert [span.name for span in telemetry.tool_spans(CALLER)] == [
        "execute_tool search",
        "execute_tool fetch",
        "execute_tool late",
    ]


async def test_instrument_uninstrument_instrument(telemetry: Telemetry) -> None:
    telemetry.uninstrument()
    telemetry.instrument()
    await run("grpc")
    assert len(telemetry.turn_spans(CALLER)) == len(telemetry.turn_spans(CALLEE)) == 1
    assert len(telemetry.tool_spans(CALLER)) == len(telemetry.tool_spans(CALLEE)) == 3


@pytest.mark.parametrize("transport", ["jsonrpc", "rest", "grpc"])
async def test_uninstrumented_makes_no_spans_and_everything_works(
    telemetry: Telemetry, transport: Transport
) -> None:
    telemetry.uninstrument()
    stream = await run(transport)
    assert stream[-1].status_update.status.state == TaskState.TASK_STATE_COMPLETED
    assert sum(envelope_of(event) is not None for event in stream) == 10
    assert telemetry.spans() == []
    assert telemetry.ledger.started_count == 0


async def test_a_server_built_while_instrumented_passes_through_after(
    telemetry: Telemetry,
) -> None:
    async with serving(STEPS, enable_output=True) as served:
        telemetry.uninstrument()  # the executor is already proxied
        stream = await call(served.card_for("rest"))
    assert stream[-1].status_update.status.state == TaskState.TASK_STATE_COMPLETED
    assert telemetry.ledger.started_count == 0


def announcements(stream: list[StreamResponse], key: str = conv.WIRE_TOOL_SPAN) -> list[str]:
    """Take the callee's announcements under ``key`` (its tool spans', or its turn span's) out
    of ``stream``'s status update events' metadata (the agent sets none there); return them.
    No Part carries one."""
    found = []
    for event in stream:
        update = event.status_update
        assert not any(key in part.metadata for part in update.status.message.parts)
        if key in update.metadata:
            found.append(update.metadata[key])
            del update.metadata[key]
            if not update.metadata:
                update.ClearField("metadata")
    return found


@pytest.mark.parametrize("transport", ["jsonrpc", "rest", "grpc"])
async def test_instrumentation_never_alters_events(
    telemetry: Telemetry, transport: Transport
) -> None:
    traced = await run(transport)
    assert len(telemetry.tool_spans()) == 6  # the bridge did see it all
    # The one addition: each update that opened a callee tool span says where that span is, in
    # the event's own metadata (its message, Parts and envelope unchanged), so the caller does
    # not count the call again; and the first update says where the callee's turn span is, so
    # the caller does not record its thinking and text again. Without them, the streams are the
    # same.
    assert announcements(traced) == [
        f"00-{span.context.trace_id:032x}-{span.context.span_id:016x}-{span.context.trace_flags:02x}"
        for span in telemetry.tool_spans(CALLEE)
        if span.context is not None
    ]
    [turn] = telemetry.turn_spans(CALLEE)
    assert turn.context is not None
    assert announcements(traced, conv.WIRE_TURN_SPAN) == [traceparent(turn.context)]
    telemetry.uninstrument()
    plain = await run(transport)
    assert announcements(plain) == announcements(plain, conv.WIRE_TURN_SPAN) == []
    assert normalized(traced) == normalized(plain)
    assert len(traced) == 14  # the task, 12 updates, the reply


async def test_an_internal_error_is_logged_once_and_harms_nothing(
    telemetry: Telemetry, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:

    def broken(self: TurnTelemetry, *args: object) -> None:
        raise RuntimeError("bridge bug")

    monkeypatch.setattr(TurnTelemetry, "_accepted", broken)
    caplog.set_level(logging.WARNING, logger=bridge.__name__)
    traced = [await run("jsonrpc"), await run("grpc")]
    assert bridge_errors(caplog) == ["a2a-progress telemetry error in feed (logged once)"]
    # The agent and the caller saw everything (the callee's turn span announced in the first
    # update, as always); the spans still ended, without tools.
    assert [len(announcements(stream, conv.WIRE_TURN_SPAN)) for stream in traced] == [1, 1]
    telemetry.uninstrument()
    assert [normalized(stream) for stream in traced] == [normalized(await run("jsonrpc"))] * 2
    assert len(telemetry.turn_spans(CALLER)) == len(telemetry.turn_spans(CALLEE)) == 2
    assert telemetry.tool_spans() == []


async def test_a_failure_while_ending_still_ends_every_span(
    telemetry: Telemetry, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger=bridge.__name__)

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("metrics bug")

    monkeypatch.setattr(BridgeMetrics, "record_duration", broken)
    # Two tools still open when the stream ends: closing the first one fails.
    async with serving([start("a", "a1"), start("b", "b1")]) as served:
        stream = await call(served.card_for("jsonrpc"))
    assert [envelope_of(event) is not None for event in stream].count(True) == 2
    assert "a2a-progress telemetry error in end (logged once)" in bridge_errors(caplog)
    # The fixture checks the rest: every span, both tools included, ended exactly once.
    assert len(telemetry.tool_spans(CALLER)) == len(telemetry.tool_spans(CALLEE)) == 2


async def test_failures_to_start_telemetry_harm_nothing(
    telemetry: Telemetry, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger=bridge.__name__)

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("bridge bug")

    monkeypatch.setattr(Bridge, "start_turn", broken)
    for transport in ("jsonrpc", "grpc"):
        stream = await run(transport)  # type: ignore[arg-type]
        assert stream[-1].status_update.status.state == TaskState.TASK_STATE_COMPLETED
    assert telemetry.ledger.started_count == 0
    assert sorted(bridge_errors(caplog)) == [
        "a2a-progress telemetry error in callee start (logged once)",
        "a2a-progress telemetry error in caller start (logged once)",
    ]
