"""A turn nobody records counts exactly what a recorded one does.

A turn the sampler dropped takes a shorter path through the bridge (a `CountingTurn`: no
``ProgressUpdate``, no text fallback, no span event buffer, no content, no tool span): its
metrics must still be the full path's, envelope for envelope. Generated streams (tool calls
opened, ended, aborted and superseded, thinking and output on any stream, duplicates of earlier
events, stale seqs more than the reorder window below a stream's highest, updates without an
envelope, unusable envelopes, late envelopes after the verdict, every way a turn ends) are fed
to one bridge whose sampler records everything and to one whose sampler records nothing; the
counts by outcome and kind, and the tool durations' counts by tool and end reason, must be
equal. On the callee, each update that carries an envelope is also fed the way the callee's own
emitter hands it over (its envelope offered beside the event, `a2a_progress.producer.handoff`),
the other path both turns take.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from a2a.types.a2a_pb2 import Part, StreamResponse, TaskState, TaskStatusUpdateEvent
from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ALWAYS_ON
from opentelemetry.trace import SpanKind, set_span_in_context

from a2a_progress.carrier import TFRS_KEY
from a2a_progress.consumer import Outcome, ProgressAssembler, ProgressUpdate
from a2a_progress.consumer.outcomes import DISCARDS
from a2a_progress.envelope import Envelope, Status, decode
from a2a_progress.otel import conventions as conv
from a2a_progress.otel.announce import Announcements, announced_value, raw_announcement
from a2a_progress.otel.bridge import Bridge
from a2a_progress.otel.config import BridgeConfig
from a2a_progress.otel.counting import CountingTurn
from a2a_progress.otel.metrics import BridgeMetrics
from a2a_progress.otel.turn import TurnTelemetry
from a2a_progress.producer.handoff import offer, withdraw
from a2a_progress.sdk.adapter import A2AEvent, view_event
from support.broken import count_without_window
from support.events import (
    WORKING,
    append,
    call,
    envelope_message,
    message,
    plain,
    status_event,
    terminal,
    think,
    working,
)

_KEYS = ("c1", "c2", None)
_DUPLICATE = Outcome.DUPLICATE.value
_STALE = 5000  # a seq this far above a stream's others makes them stale (window: 1024)
_ENDS = (
    TaskState.TASK_STATE_COMPLETED,
    TaskState.TASK_STATE_FAILED,
    TaskState.TASK_STATE_CANCELED,
    TaskState.TASK_STATE_INPUT_REQUIRED,
    None,  # the stream ends without a verdict
)


@st.composite
def _streams(draw: st.DrawFn) -> list[StreamResponse]:
    events: list[StreamResponse] = []
    for _ in range(draw(st.integers(0, 40))):
        choice = draw(
            st.sampled_from(
                (
                    *("think", "start", "done", "aborted", "append", "plain", "bad", "repeat"),
                    *("jump", "pair", "number", "verdict"),
                )
            )
        )
        seq = draw(st.integers(1, 12))
        key = draw(st.sampled_from(_KEYS))
        tool = draw(st.sampled_from(("search", "read_file")))
        if choice == "think":
            events.append(working(think(seq, "thinking it over", key)))
        elif choice == "start":
            events.append(working(call(seq, key, tool=tool)))
        elif choice in {"done", "aborted"}:
            status = Status.DONE if choice == "done" else Status.ABORTED
            events.append(working(call(seq, key, status, tool=tool)))
        elif choice == "append" and key is not None:
            events.append(working(append(seq, key)))
        elif choice == "plain":
            events.append(plain("a hand-written update"))
        elif choice == "bad":
            events.append(working(draw(st.sampled_from(('{"v":2}', "{not json", '{"v":1}')))))
        elif choice == "repeat" and events:
            events.append(draw(st.sampled_from(events)))
        elif choice == "pair":
            # An envelope Part beside a second Part (the envelope counts, the text does not).
            parts = [*envelope_message(think(seq, "and a note", key)).parts, Part(text="note")]
            events.append(StreamResponse(status_update=status_event(WORKING, message(parts))))
        elif choice == "number":
            # A JSON value under tfrs that is no string: a rejected envelope.
            part = Part(text="fallback")
            part.metadata.fields[TFRS_KEY].number_value = seq
            events.append(StreamResponse(status_update=status_event(WORKING, message([part]))))
        elif choice == "verdict":
            # A verdict whose message carries an envelope: it ends the turn all the same.
            end = draw(st.sampled_from([state for state in _ENDS if state is not None]))
            events.append(
                StreamResponse(status_update=status_event(end, envelope_message(think(seq))))
            )
        elif choice == "jump":
            # Far ahead on this stream: its lower seqs sent after this are stale.
            events.append(working(think(_STALE + seq, "jumped", key)))
    end = draw(st.sampled_from(_ENDS))
    if end is not None:
        events.append(terminal(end, "bye"))
        events.append(working(think(99, "after the verdict")))
    return events


def _handed(event: A2AEvent) -> list[tuple[Envelope, str, str, str]]:
    """What a callee's emitter offers its bridge beside ``event``, a WORKING update as its
    updater enqueues it (bare): the envelope its lone Part carries, that Part's text and the
    update's task and context ids (none: nothing offered; an emitter sends only WORKING
    updates)."""
    if (
        not isinstance(event, TaskStatusUpdateEvent)
        or event.status.state != WORKING
        or len(event.status.message.parts) != 1
    ):
        return []
    part = event.status.message.parts[0]
    value = part.metadata.fields.get(TFRS_KEY)
    found = None if value is None else decode(value.string_value)
    if not isinstance(found, Envelope):
        return []
    return [(found, part.text, event.task_id, event.context_id)]


def _counts(
    events: list[A2AEvent], *, recorded: bool, observer: str, handed: bool = False
) -> dict[Any, float]:
    """The metric points a turn of ``events`` leaves, by metric and attributes (``handed``: each
    envelope offered beside its event, as the callee's emitter does)."""
    tracer_provider = TracerProvider(sampler=ALWAYS_ON if recorded else ALWAYS_OFF)
    exporter = InMemorySpanExporter()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    meters = MeterProvider(metric_readers=[reader])
    bridge = Bridge(
        tracer_provider.get_tracer("test"),
        BridgeMetrics(meters.get_meter("test")),
        BridgeConfig(),
    )
    kind = SpanKind.CLIENT if observer == conv.OBSERVER_CALLER else SpanKind.SERVER
    turn = bridge.start_turn(
        conv.METHOD_SEND_STREAMING, kind=kind, observer=observer, parent=None, attributes={}
    )
    assert isinstance(turn, TurnTelemetry if recorded else CountingTurn)
    for event in events:
        token = offer(_handed(event)) if handed else None
        turn.feed(event)
        if token is not None:
            withdraw(token)
    turn.end()
    assert bool(exporter.get_finished_spans()) is recorded
    found: dict[Any, float] = {}
    data = reader.get_metrics_data()
    for resource in data.resource_metrics if data is not None else ():
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                for point in metric.data.data_points:
                    key = (metric.name, frozenset((point.attributes or {}).items()))
                    found[key] = getattr(point, "count", None) or getattr(point, "value", 0)
    return found


def _consumer_counts(events: list[A2AEvent], *, observer: str) -> dict[Any, float]:
    """The envelope counts the full consumer path makes of ``events``: every event read into a
    view, every accepted envelope made a `ProgressUpdate` (the bridge counts by outcome as
    `TurnTelemetry` maps them: stale and after-terminal count as duplicates)."""
    outcomes: Counter[str] = Counter()
    kinds: Counter[str] = Counter()

    def reported(outcome: Outcome) -> None:
        outcomes[_DUPLICATE if outcome in DISCARDS else outcome.value] += 1

    assembler = ProgressAssembler(
        on_outcome=reported, dialects=None if observer == conv.OBSERVER_CALLER else "none"
    )
    for event in events:
        for update in assembler.feed(event):
            if isinstance(update, ProgressUpdate) and not update.degraded:
                kinds[update.envelope.kind.value] += 1
    assembler.close()
    found: dict[Any, float] = {}
    for outcome, count in outcomes.items():
        found[
            (conv.METRIC_ENVELOPES, frozenset({conv.OUTCOME: outcome, **_side(observer)}.items()))
        ] = count
    for kind, count in kinds.items():
        found[
            (conv.METRIC_ENVELOPE_KINDS, frozenset({conv.KIND: kind, **_side(observer)}.items()))
        ] = count
    return found


def _side(observer: str) -> dict[str, str]:
    return {conv.OBSERVER: observer}


def _envelope_counts(counts: dict[Any, float]) -> dict[Any, float]:
    wanted = {conv.METRIC_ENVELOPES, conv.METRIC_ENVELOPE_KINDS}
    return {key: value for key, value in counts.items() if key[0] in wanted}


@settings(max_examples=200, deadline=None)
@given(_streams(), st.sampled_from((conv.OBSERVER_CALLER, conv.OBSERVER_CALLEE)), st.data())
def test_the_bridge_counts_what_the_full_consumer_path_does(
    events: list[StreamResponse], observer: str, data: st.DataObject
) -> None:
    """The bridge reads most updates without a view (`working_envelope`), the consumer reads
    each into one: the counts by outcome and kind are the same, sampled or not, for events
    wrapped in a stream response (what a client yields) or bare (what an executor enqueues)."""
    fed: list[A2AEvent] = [
        event.status_update if data.draw(st.booleans()) and event.HasField("status_update")
        else event
        for event in events
    ]  # fmt: skip
    expected = _consumer_counts(fed, observer=observer)
    for recorded in (True, False):
        assert _envelope_counts(_counts(fed, recorded=recorded, observer=observer)) == expected


@settings(max_examples=200, deadline=None)
@given(_streams(), st.sampled_from((conv.OBSERVER_CALLER, conv.OBSERVER_CALLEE)))
def test_an_unsampled_turn_counts_what_a_sampled_one_does(
    events: list[StreamResponse], observer: str
) -> None:
    assert _counts(events, recorded=False, observer=observer) == _counts(
        events, recorded=True, observer=observer
    )


@settings(max_examples=200, deadline=None)
@given(_streams(), st.data())
def test_a_callee_counts_its_own_handed_envelopes_as_it_counts_read_ones(
    events: list[StreamResponse], data: st.DataObject
) -> None:
    """The callee's emitter hands each envelope over beside its update (bare, as an executor
    enqueues it): unsampled or not, the counts and durations are those of the same events read
    from the wire, and the counts those of the full consumer path."""
    fed: list[A2AEvent] = [
        event.status_update if data.draw(st.booleans()) and event.HasField("status_update")
        else event
        for event in events
    ]  # fmt: skip
    callee = conv.OBSERVER_CALLEE
    read = _counts(fed, recorded=True, observer=callee)
    assert _envelope_counts(read) == _consumer_counts(fed, observer=callee)
    for recorded in (True, False):
        assert _counts(fed, recorded=recorded, observer=callee, handed=True) == read


def test_only_a_turn_under_a_recording_span_is_recorded() -> None:
    """A turn the sampler dropped is only counted, unless the span it starts under records (the
    caller's opt-in invoke_agent span, under a sampler of its own): then it says why it failed
    there, and is a full turn."""
    tracer = TracerProvider(sampler=ALWAYS_OFF).get_tracer("test")
    meters = MeterProvider(metric_readers=[InMemoryMetricReader()])
    bridge = Bridge(tracer, BridgeMetrics(meters.get_meter("test")), BridgeConfig())
    recording = TracerProvider(sampler=ALWAYS_ON).get_tracer("test").start_span("invoke_agent")
    parents = [(None, CountingTurn), (set_span_in_context(recording), TurnTelemetry)]
    for parent, kind in parents:
        turn = bridge.start_turn(
            "call", kind=SpanKind.CLIENT, observer=conv.OBSERVER_CALLER, parent=parent,
            attributes={},
        )  # fmt: skip
        assert isinstance(turn, kind)
        assert not turn.span.is_recording()
        turn.end()
    assert bridge.live_turns == []


def test_an_unsampled_callee_still_announces_its_tool_calls() -> None:
    """The caller counts a tool call only when the callee did not announce it: a callee turn
    nobody records announces each call it opens (the turn's own context) all the same."""
    tracer = TracerProvider(sampler=ALWAYS_OFF).get_tracer("test")
    meters = MeterProvider(metric_readers=[InMemoryMetricReader()])
    bridge = Bridge(tracer, BridgeMetrics(meters.get_meter("test")), BridgeConfig())
    turn = bridge.start_turn(
        "execute", kind=SpanKind.SERVER, observer=conv.OBSERVER_CALLEE, parent=None, attributes={}
    )
    assert isinstance(turn, CountingTurn)
    turn.feed(working(think(1)).status_update)
    assert turn.announcement is None
    turn.feed(working(call(2, "c1")).status_update)
    assert turn.announcement == turn.span.get_span_context()
    turn.end()


_REACHING = [
    working(call(1, "c1")),
    working(call(1, "c1")),  # duplicate
    working(think(_STALE, "jumped", "c2")),
    working(think(2, "stale", "c2")),  # stale
    plain("a hand-written update"),  # degraded
    working('{"v":2}'),  # unknown version
    working("{not json"),  # invalid
    working(call(2, "c1", Status.ABORTED)),
    working(call(3, "c3")),
    working(call(4, "c3")),  # supersedes the open call of c3, open at the verdict
    terminal(TaskState.TASK_STATE_COMPLETED, "bye"),
    working(think(99, "after the verdict")),  # after_terminal
]


def test_the_generated_streams_reach_every_outcome() -> None:
    """The comparison above is not vacuous: a stream like those it draws counts duplicates,
    stale, after-terminal, degraded and invalid updates, and tool calls ending every way."""
    events = _REACHING
    counts = _counts(events, recorded=False, observer=conv.OBSERVER_CALLER)
    outcomes = {
        dict(attributes)[conv.OUTCOME]
        for name, attributes in counts
        if name == conv.METRIC_ENVELOPES
    }
    assert {"accepted", "duplicate", "degraded", "unknown_version", "invalid"} <= outcomes
    reasons = {
        dict(attributes)[conv.END_REASON]
        for name, attributes in counts
        if name == conv.METRIC_TOOL_DURATION
    }
    assert {"aborted", "superseded", "turn_completed"} <= reasons
    assert counts == _counts(events, recorded=True, observer=conv.OBSERVER_CALLER)


@pytest.mark.parametrize("observer", [conv.OBSERVER_CALLER, conv.OBSERVER_CALLEE])
def test_the_comparison_catches_a_counting_path_that_skips_the_window(
    monkeypatch: pytest.MonkeyPatch, observer: str
) -> None:
    """Most updates of a turn, recorded or not, are consumed by
    `ProgressAssembler.count_working` alone: broken (repeats taken as new), the counts of
    both turns differ from the full consumer path's, which never takes that shortcut."""
    # The callee counts what its emitter hands over, beside a bare update (as enqueued).
    handed = observer == conv.OBSERVER_CALLEE
    events: list[A2AEvent] = [
        event.status_update if handed and event.HasField("status_update") else event
        for event in _REACHING
    ]
    expected = _consumer_counts(events, observer=observer)
    for recorded in (True, False):
        counts = _counts(events, recorded=recorded, observer=observer, handed=handed)
        assert _envelope_counts(counts) == expected
    monkeypatch.setattr(ProgressAssembler, "count_working", count_without_window)
    for recorded in (True, False):
        counts = _counts(events, recorded=recorded, observer=observer, handed=handed)
        assert _envelope_counts(counts) != expected


_HEX = "0123456789abcdef"


_ANNOUNCEMENTS = st.one_of(
    st.builds(
        "00-{}-{}-{}".format,
        st.sampled_from(("0" * 32, "0" * 31 + "1")) | st.text(_HEX, min_size=32, max_size=32),
        st.sampled_from(("0" * 16, "0" * 15 + "1")) | st.text(_HEX, min_size=16, max_size=16),
        st.text(_HEX, min_size=2, max_size=2),
    ),
    st.text(max_size=60),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_ANNOUNCEMENTS | st.none(), st.booleans()), min_size=1, max_size=6))
def test_an_unsampled_caller_reads_an_announcement_as_a_sampled_one(
    values: list[tuple[str | None, bool]],
) -> None:
    """A turn nobody records asks only whether the callee announced the call (`Announcements`):
    the answer is whether a recorded turn finds its span context (`announced_value` of the
    `raw_announcement` it reads), for any value in the update's metadata or, as a 0.2.x callee
    put it, beside the envelope, none at all, and values read one after another by one turn
    (it remembers the last: repeats, alternations and changes must all be read afresh)."""
    read_part, read_view = Announcements(), Announcements()
    for value, beside_envelope in values:
        event = working(call(1, "c1"))
        part = event.status_update.status.message.parts[0]
        if value is not None:
            where = part.metadata if beside_envelope else event.status_update.metadata
            where.fields[conv.WIRE_TOOL_SPAN].string_value = value
        if not beside_envelope:
            part = None
        expected = announced_value(raw_announcement(event, part)) is not None
        assert read_part.announces(event, part) is expected
        view = view_event(event)
        assert view.message is not None
        assert read_view.announces(event, message=view.message) is (
            announced_value(raw_announcement(event, message=view.message)) is not None
        )
