"""Generated turns: many envelope streams with drops, duplicates and reordering, fed straight to
a :class:`TurnTelemetry` as the A2A events a caller receives. Whatever arrives, every span ends
exactly once, there is one tool span per tool call that had any of its ``tool_call`` envelopes
arrive, and no event is recorded twice."""

from collections import Counter
from dataclasses import dataclass

from a2a.types import Message, Part, Role, TaskState, TaskStatus, TaskStatusUpdateEvent
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opentelemetry.trace import SpanKind, StatusCode
from otel_support import attrs, events, pipelines, span_id

from a2a_progress.envelope import Envelope, Kind, Status, encode
from a2a_progress.otel import conventions as conv
from a2a_progress.otel.bridge import Bridge
from a2a_progress.otel.config import BridgeConfig
from a2a_progress.otel.metrics import BridgeMetrics
from a2a_progress.sdk.adapter import envelope_part

TERMINALS = [
    None,
    TaskState.TASK_STATE_COMPLETED,
    TaskState.TASK_STATE_FAILED,
    TaskState.TASK_STATE_CANCELED,
    TaskState.TASK_STATE_REJECTED,
]
ERROR_REASONS = {"aborted", "turn_failed"}  # a cancellation is no error
END_REASONS = ERROR_REASONS | {
    "done",
    "superseded",
    "turn_canceled",
    "turn_completed",
    "stream_closed",
}


@dataclass(frozen=True)
class Sent:
    """One working update: its envelope (None: a plain-text update) and, for a tool_call
    envelope, the index of the tool call it belongs to."""

    envelope: Envelope | None
    message_id: str
    call: int | None = None


@dataclass(frozen=True)
class Turn:
    sent: list[Sent]
    delivered: list[Sent]
    terminal: int | None
    raised: bool


@st.composite
def turns(draw: st.DrawFn) -> Turn:
    """A turn's updates in emission order (seq strictly increasing from any start), then the
    same updates as they arrive: some dropped, some repeated, the order shuffled locally."""
    n_calls = draw(st.integers(0, 5))
    # Call 0 may run on the default stream (no key at all); the others have their own key,
    # as a streamKey or only as a tool_call_id.
    keys = [
        draw(st.sampled_from(["stream", "call_id"] + (["default"] if i == 0 else [])))
        for i in range(n_calls)
    ]
    # Each call: start, a few progress envelopes on its stream, then done, aborted or nothing.
    scripts: list[list[tuple[str, int | None]]] = []
    for i in range(n_calls):
        steps = [("start", i)]
        steps += [("progress", i)] * draw(st.integers(0, 3))
        end = draw(st.sampled_from(["done", "aborted", None]))
        if end is not None:
            steps.append((end, i))
        scripts.append(steps)
    free = [("free", None)] * draw(st.integers(0, 5)) + [("plain", None)] * draw(st.integers(0, 2))
    # Interleave the calls' scripts and the free updates, keeping each script's order.
    order = draw(st.permutations([i for i, s in enumerate(scripts) for _ in s] + [-1] * len(free)))
    cursors = [0] * n_calls
    seq = draw(st.integers(-1000, 10**12))
    sent: list[Sent] = []
    for pick in order:
        if pick == -1:
            what, call = free.pop()
        else:
            what, call = scripts[pick][cursors[pick]]
            cursors[pick] += 1
        seq += draw(st.integers(1, 3))  # gaps are allowed
        sent.append(_update(what, call, keys, seq, len(sent)))

    delivered = [item for item in sent if draw(st.integers(0, 9)) > 1]  # ~20% lost
    for _ in range(draw(st.integers(0, 5))):  # repeats, anywhere after the first arrival
        if delivered:
            index = draw(st.integers(0, len(delivered) - 1))
            delivered.insert(draw(st.integers(index, len(delivered))), delivered[index])
    for _ in range(draw(st.integers(0, 8))):  # local swaps
        if len(delivered) > 1:
            i = draw(st.integers(0, len(delivered) - 2))
            delivered[i], delivered[i + 1] = delivered[i + 1], delivered[i]
    return Turn(sent, delivered, draw(st.sampled_from(TERMINALS)), draw(st.booleans()))


def _update(what: str, call: int | None, keys: list[str], seq: int, n: int) -> Sent:
    message_id = f"m{n}"
    if what == "plain":
        return Sent(None, message_id)
    if what == "free":
        kind = [Kind.THINKING, Kind.TEXT, Kind.ERROR][n % 3]
        payload = {"message": f"e{n}"} if kind is Kind.ERROR else {"text": f"t{n}"}
        return Sent(Envelope(kind, seq, payload), message_id)
    assert call is not None
    tool = {"tool": f"tool{call}"}
    if keys[call] == "call_id":
        tool["tool_call_id"] = f"id{call}"
    stream_key = f"k{call}" if keys[call] == "stream" else None
    if what == "progress":
        payload = {**tool, "chunk": f"out{n}"}
        return Sent(
            Envelope(Kind.TOOL_OUTPUT_APPEND, seq, payload, stream_key=stream_key), message_id
        )
    status = {"start": Status.RUNNING, "done": Status.DONE, "aborted": Status.ABORTED}[what]
    return Sent(Envelope(Kind.TOOL_CALL, seq, tool, status, stream_key), message_id, call)


def as_event(item: Sent) -> TaskStatusUpdateEvent:
    if item.envelope is None:
        part = Part(text=f"plain {item.message_id}")
    else:
        part = envelope_part(encode(item.envelope), "fallback")
    message = Message(message_id=item.message_id, role=Role.ROLE_AGENT, parts=[part])
    status = TaskStatus(state=TaskState.TASK_STATE_WORKING, message=message)
    return TaskStatusUpdateEvent(task_id="task", context_id="ctx", status=status)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turns())
def test_generated_streams(turn: Turn) -> None:
    with pipelines() as telemetry:
        tracer = telemetry.tracer_provider.get_tracer("test")
        metrics = BridgeMetrics(telemetry.meter_provider.get_meter("test"))
        # No cap: every event is counted; content on, so each is told apart by its text.
        config = BridgeConfig(max_events_per_span=1000, capture_content=True)
        telemetry_turn = Bridge(tracer, metrics, config).start_turn(
            "SendStreamingMessage",
            kind=SpanKind.CLIENT,
            observer=conv.OBSERVER_CALLER,
            parent=None,
            attributes={},
        )
        for item in turn.delivered:
            telemetry_turn.feed(as_event(item))
        if turn.terminal is not None:
            telemetry_turn.feed(
                TaskStatusUpdateEvent(
                    task_id="task", context_id="ctx", status=TaskStatus(state=turn.terminal)
                )
            )
        telemetry_turn.end(error=RuntimeError("stream broke") if turn.raised else None)
        telemetry_turn.end()  # a second end changes nothing

        telemetry.assert_each_span_ended_once()
        [root] = telemetry.turn_spans(conv.OBSERVER_CALLER)
        tools = telemetry.tool_spans()

        # One span per tool call that had a tool_call envelope arrive.
        expected_calls = {item.call for item in turn.delivered if item.call is not None}
        assert sorted(span.name for span in tools) == sorted(
            f"execute_tool tool{call}" for call in expected_calls
        )
        for span in tools:
            assert span.parent is not None
            assert span.parent.span_id == span_id(root)
            reason = attrs(span)[conv.END_REASON]
            assert reason in END_REASONS
            is_error = reason in ERROR_REASONS or (turn.raised and reason == "stream_closed")
            assert (span.status.status_code is StatusCode.ERROR) == is_error
            assert attrs(span)[conv.SEQ_FIRST] <= attrs(span)[conv.SEQ_LAST]

        # Every progress update that arrived is one event, once.
        recorded = [
            (event.get(conv.STREAM_KEY), event.get(conv.SEQ), event[conv.CONTENT])
            for span in [root, *tools]
            for event in events(span)
        ]
        assert not [item for item, count in Counter(recorded).items() if count > 1]
        arrived = {
            item.message_id
            for item in turn.delivered
            if item.envelope is None or item.envelope.kind is not Kind.TOOL_CALL
        }
        assert len(recorded) == len(arrived)
        # Progress sits on the tool span of its own stream, or on the turn.
        for span in tools:
            for event in events(span):
                assert event.get(conv.STREAM_KEY) == attrs(span).get(conv.STREAM_KEY)
