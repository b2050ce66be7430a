"""The callee's turn span, announced (``tfrs.turn``): the caller does not write its events twice.

A callee whose turn span is sampled puts that span's ``traceparent`` in the metadata of the
first status update event of the turn. That span carries the turn's thinking and text as span
events; a caller in the same trace then writes none of them on its call span (with content, its
``gen_ai.output.messages`` still holds them), unless ``mirror_spans`` asks for them. Without the
key (an uninstrumented or older callee, a callee whose sampler dropped the turn, another trace,
a caller that joined midway), the caller writes them as it always did.
"""

import asyncio
import logging

import pytest
from a2a.types import Part, StreamResponse
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF
from otel_support import (
    COMBINATION_IDS,
    COMBINATIONS,
    Telemetry,
    attrs,
    call,
    complete,
    done,
    error,
    event_names,
    events,
    reached,
    serving,
    start,
    subscribe_midway,
    text,
    thinking,
    wait,
)

from a2a_progress.otel import bridge
from a2a_progress.otel import conventions as conv
from a2a_progress.otel.announce import TURN_OWN_KEPT, traceparent
from a2a_progress.serving import Transport
from support.scripted import parts

CALLER, CALLEE = conv.OBSERVER_CALLER, conv.OBSERVER_CALLEE
STEPS = [
    thinking("Let me look at the deploy first."),
    start("search", "s1"),
    done("s1"),
    text("CI is red"),
    error("the runner is gone"),
    complete(),
]
SAID = [conv.EVENT_THINKING, conv.EVENT_TEXT, conv.EVENT_ERROR]
# Another trace's span (an agent that relays another agent's updates, its key included).
ELSEWHERE = "00-" + "a" * 32 + "-" + "b" * 16 + "-01"


def status_metadata(stream: list[StreamResponse]) -> list[dict[str, object]]:
    return [
        dict(event.status_update.metadata)
        for event in stream
        if event.WhichOneof("payload") == "status_update"
    ]


def turn_events(span: ReadableSpan) -> list[str]:
    return [name for name in event_names(span) if name in SAID]


def said(span: ReadableSpan) -> list[tuple[str, object, object, object]]:
    """The thinking, text and error events of ``span``: name, seq, size and content."""
    return [
        (name, e.get(conv.SEQ), e[conv.CONTENT_SIZE], e.get(conv.CONTENT))
        for name, e in zip(event_names(span), events(span), strict=True)
        if name in SAID
    ]


@pytest.mark.parametrize(("transport", "v0_3"), COMBINATIONS, ids=COMBINATION_IDS)
async def test_the_first_update_announces_the_callees_turn_and_the_caller_leaves_its_events(
    telemetry: Telemetry, transport: Transport, v0_3: bool
) -> None:
    telemetry.instrument(mirror_spans=None)  # the default
    async with serving(STEPS) as served:
        stream = await call(served.card_for(transport, v0_3=v0_3))
    execution, call_span = telemetry.turn_span(CALLEE), telemetry.turn_span(CALLER)
    assert execution.context is not None
    metadata = status_metadata(stream)
    # Once, in the first status update, beside nothing else; never in a Part.
    assert metadata[0] == {conv.WIRE_TURN_SPAN: traceparent(execution.context)}
    assert all(conv.WIRE_TURN_SPAN not in later for later in metadata[1:])
    for event in stream:
        for part in event.status_update.status.message.parts:
            assert conv.WIRE_TURN_SPAN not in part.metadata
    # The callee's turn span has the thinking and text; the caller's has its error only (an
    # error stays on both: the caller's own record of why its call went wrong).
    assert turn_events(execution) == SAID
    assert turn_events(call_span) == [conv.EVENT_ERROR]
    # With content, the caller's output messages are the callee's all the same.
    assert (
        attrs(call_span)[conv.GEN_AI_OUTPUT_MESSAGES]
        == attrs(execution)[conv.GEN_AI_OUTPUT_MESSAGES]
    )


async def test_content_off_the_caller_leaves_the_events_too(telemetry: Telemetry) -> None:
    telemetry.instrument(mirror_spans=None, capture_content=False)
    async with serving(STEPS) as served:
        await call(served.card_for("jsonrpc"))
    assert turn_events(telemetry.turn_span(CALLEE)) == SAID
    assert turn_events(telemetry.turn_span(CALLER)) == [conv.EVENT_ERROR]
    # The envelopes are counted on both sides alike.
    for observer in (CALLER, CALLEE):
        assert telemetry.counts(conv.METRIC_ENVELOPE_KINDS, conv.KIND, observer) == {
            "thinking": 1,
            "tool_call": 2,
            "text": 1,
            "error": 1,
        }


async def test_mirror_spans_keep_the_callers_events(telemetry: Telemetry) -> None:
    telemetry.instrument(mirror_spans=True)
    async with serving(STEPS) as served:
        stream = await call(served.card_for("rest"))
    assert conv.WIRE_TURN_SPAN in status_metadata(stream)[0]  # announced all the same
    caller, callee = (said(telemetry.turn_span(observer)) for observer in (CALLER, CALLEE))
    assert caller == callee
    assert [name for name, *_ in caller] == SAID


async def test_an_uninstrumented_callee_leaves_the_caller_its_events(
    telemetry: Telemetry,
) -> None:
    telemetry.instrument(sides="caller", mirror_spans=None)  # as an older callee: no key
    async with serving(STEPS) as served:
        stream = await call(served.card_for("grpc"))
    assert all(conv.WIRE_TURN_SPAN not in metadata for metadata in status_metadata(stream))
    assert turn_events(telemetry.turn_span(CALLER)) == SAID


async def test_a_turn_the_callees_sampler_dropped_is_not_announced(telemetry: Telemetry) -> None:
    dropping = TracerProvider(sampler=ALWAYS_OFF)
    telemetry.instrument(callee_tracer_provider=dropping, mirror_spans=None)
    async with serving(STEPS) as served:
        stream = await call(served.card_for("jsonrpc"))
    assert telemetry.turn_spans(CALLEE) == []
    assert all(conv.WIRE_TURN_SPAN not in metadata for metadata in status_metadata(stream))
    assert turn_events(telemetry.turn_span(CALLER)) == SAID


async def test_an_agents_own_key_from_another_trace_goes_on_and_the_caller_keeps_its_events(
    telemetry: Telemetry, caplog: pytest.LogCaptureFixture
) -> None:
    # An agent relaying another agent's updates, that agent's key included: never overwritten
    # (said once); the span it names is in another trace, so the caller writes its own events.
    caplog.set_level(logging.WARNING, logger=bridge.__name__)
    telemetry.instrument(mirror_spans=None)
    opening = parts([Part(text="relaying")], metadata={conv.WIRE_TURN_SPAN: ELSEWHERE})
    async with serving([opening, *STEPS]) as served:
        stream = await call(served.card_for("jsonrpc"))
    metadata = status_metadata(stream)
    assert metadata[0] == {conv.WIRE_TURN_SPAN: ELSEWHERE}
    assert all(conv.WIRE_TURN_SPAN not in later for later in metadata[1:])
    assert [r.getMessage() for r in caplog.records if TURN_OWN_KEPT in r.getMessage()] != []
    # The relayed update's own text (no envelope: a degraded text event) comes first.
    assert turn_events(telemetry.turn_span(CALLER)) == [conv.EVENT_TEXT, *SAID]


async def test_a_caller_that_joins_midway_keeps_its_events(telemetry: Telemetry) -> None:
    # Its first event is the Task, whose metadata a2a-sdk merged from every update's (the turn
    # announcement included): a Task is never read, and no later update announces the turn.
    telemetry.instrument(mirror_spans=None)
    started, gate = asyncio.Event(), asyncio.Event()
    steps = [thinking("first"), reached(started), wait(gate), text("after"), complete()]
    async with serving(steps) as served:
        _, subscribed = await subscribe_midway(served.card_for("jsonrpc"), started, gate)
    assert subscribed[0].task.metadata[conv.WIRE_TURN_SPAN] == traceparent(
        telemetry.turn_span(CALLEE).context  # type: ignore[arg-type]
    )
    [subscription] = [s for s in telemetry.turn_spans(CALLER) if s.name == "SubscribeToTask"]
    assert conv.EVENT_TEXT in event_names(subscription)
