"""Peer names (tools, stream keys, call ids) on spans: masked and bounded every turn, whether
the bridge has seen them in an earlier turn or not (clean names are remembered across turns)."""

from __future__ import annotations

import uuid
from typing import Any
from unittest.mock import patch

from a2a.types.a2a_pb2 import Message, Role, TaskState, TaskStatus, TaskStatusUpdateEvent
from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind
from otel_support import Step, Telemetry, attrs, call, complete, done, serving, start

from a2a_progress.envelope import Envelope, Kind, Status, encode
from a2a_progress.otel import conventions as conv
from a2a_progress.otel.bridge import Bridge
from a2a_progress.otel.config import BridgeConfig
from a2a_progress.otel.metrics import BridgeMetrics
from a2a_progress.otel.peer_names import PeerNames
from a2a_progress.otel.safe_text import peer_name
from a2a_progress.redaction import DEFAULT_REDACTOR, MASK, Redactor
from a2a_progress.sdk.adapter import envelope_part
from support.spans import tool_call_id, tool_name

SECRET_KEY = "ghp_1234567890abcdefghijABCDEFGHIJ123456"
SECRET_TOOL = "AKIAIOSFODNN7EXAMPLE"
LONG_KEY = "k" * 5000


def _update(task: str, envelope: Envelope) -> TaskStatusUpdateEvent:
    part = envelope_part(encode(envelope), "fallback")
    message = Message(message_id=f"m{envelope.seq}", role=Role.ROLE_AGENT, parts=[part])
    status = TaskStatus(state=TaskState.TASK_STATE_WORKING, message=message)
    return TaskStatusUpdateEvent(task_id=task, context_id="ctx", status=status)


def _turn_events(task: str) -> list[TaskStatusUpdateEvent]:
    events: list[TaskStatusUpdateEvent] = []
    seq = 0
    for key, tool in [("call-0", "search"), (SECRET_KEY, "read"), (LONG_KEY, SECRET_TOOL)]:
        for kind, status in [
            (Kind.TOOL_CALL, Status.RUNNING),
            (Kind.THINKING, Status.RUNNING),
            (Kind.TOOL_CALL, Status.DONE),
        ]:
            seq += 1
            payload: dict[str, str] = (
                {"tool": tool, "tool_call_id": key} if kind is Kind.TOOL_CALL else {}
            )
            if kind is Kind.THINKING:
                payload = {"text": "hm"}
            events.append(_update(task, Envelope(kind, seq, payload, status, stream_key=key)))
    return events


def _run(
    observer: str, redactor: Redactor | None = None
) -> tuple[Bridge, list[list[dict[str, Any]]]]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    meter = MeterProvider(metric_readers=[InMemoryMetricReader()]).get_meter("t")
    config = BridgeConfig() if redactor is None else BridgeConfig(redactor=redactor)
    bridge = Bridge(provider.get_tracer("t"), BridgeMetrics(meter), config)
    turns = []
    for number in range(3):
        kind = SpanKind.CLIENT if observer == conv.OBSERVER_CALLER else SpanKind.SERVER
        turn = bridge.start_turn("t", kind=kind, observer=observer, parent=None, attributes={})
        for event in _turn_events(f"task-{number}"):
            turn.feed(event)
        turn.end()
        spans = [span for span in exporter.get_finished_spans() if span.kind is SpanKind.INTERNAL]
        # Everything but the task id, which is each turn's own.
        turns.append(
            [
                dict(span.attributes or {})
                | {"events": [dict(event.attributes or {}) for event in span.events]}
                for span in spans
            ]
        )
        for span in turns[-1]:
            assert span.pop(conv.A2A_TASK_ID) == f"task-{number}"
        exporter.clear()
    return bridge, turns


def test_names_are_the_same_every_turn_and_credentials_stay_masked() -> None:
    for observer in (conv.OBSERVER_CALLER, conv.OBSERVER_CALLEE):
        bridge, turns = _run(observer)
        first = turns[0]
        assert [tool_name(span) for span in first] == ["search", "read", MASK]
        assert [span[conv.STREAM_KEY] for span in first][:2] == ["call-0", MASK]
        assert first[2][conv.STREAM_KEY].endswith("...truncated")
        assert len(first[2][conv.STREAM_KEY]) <= 256
        assert first[1]["events"][0][conv.STREAM_KEY] == MASK
        for later in turns[1:]:
            assert later == first
        # Only names that came out unchanged are remembered beyond their turn.
        assert "call-0" in bridge.names
        assert "search" in bridge.names
        for raw in (SECRET_KEY, SECRET_TOOL, LONG_KEY):
            assert raw not in bridge.names


def test_names_follow_the_bridges_own_redactor() -> None:
    redactor = Redactor([r"call-\d+"])
    bridge, turns = _run(conv.OBSERVER_CALLER, redactor)
    for turn in turns:
        assert turn[0][conv.STREAM_KEY] == MASK
    assert "call-0" not in bridge.names


# Keys the emitter redacts before they go out, the callee's bridge then names its spans after:
# clean, holding a credential, longer than a span name, non-ASCII, near the name limit.
OWN_KEYS = [
    "call-1",
    f"id-{SECRET_KEY}",
    "k" * 2000,
    "é" * 200,
    "x" * 255 + "é",
    "s" * 256,
]


async def test_the_callee_names_its_own_emitters_keys_as_a_scan_would(
    telemetry: Telemetry,
) -> None:
    steps: list[Step] = []
    for index, key in enumerate(OWN_KEYS):
        steps += [start(f"tool{index}", key), done(key)]
    steps.append(complete())
    async with serving(steps) as served:
        await call(served.card_for("jsonrpc"))
    expected = [peer_name(DEFAULT_REDACTOR.redact(key), DEFAULT_REDACTOR) for key in OWN_KEYS]
    assert MASK in expected[1]
    assert expected[2].endswith("...truncated")
    for observer in (conv.OBSERVER_CALLER, conv.OBSERVER_CALLEE):
        spans = telemetry.tool_spans(observer)
        assert [attrs(span)[conv.STREAM_KEY] for span in spans] == expected
        assert [tool_call_id(attrs(span)) for span in spans] == expected


@settings(max_examples=300, deadline=None)
@given(st.uuids())
def test_a_uuid_is_a_name_the_default_redactor_leaves_and_is_not_scanned(value: uuid.UUID) -> None:
    # a2a-sdk's task, context and message ids: the turn start names them every turn.
    text = str(value)
    assert peer_name(text, DEFAULT_REDACTOR) == text
    names = PeerNames(DEFAULT_REDACTOR)
    with patch.object(Redactor, "redact_counted", side_effect=AssertionError("scanned")):
        assert names.name(text) == text
    assert text not in names  # unique: not remembered


def test_a_uuid_is_scanned_by_a_redactor_of_your_own() -> None:
    text = "0f8fad5b-d9cb-469f-a165-70867728950e"
    names = PeerNames(Redactor([r"[0-9a-f]{8}-[0-9a-f]{4}-4"]))
    assert names.name(text) == f"{MASK}69f-a165-70867728950e"
