"""Helpers of the OpenTelemetry bridge tests: in-memory pipelines and span queries.

Agents are real a2a-sdk servers on loopback (``serve_agent``) running tests/support's scripted
agent (:mod:`support.scripted`: a list of steps, each an async callable given the turn); its
steps are re-exported here, where these tests have always found them.
"""

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

from a2a.client import Client, ClientCallContext
from a2a.types import (
    AgentCard,
    SendMessageRequest,
    StreamResponse,
    SubscribeToTaskRequest,
)
from opentelemetry.sdk.metrics.export import Metric
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import SpanKind, StatusCode

from a2a_progress.envelope import Envelope
from a2a_progress.otel import A2AProgressInstrumentor
from a2a_progress.otel import conventions as conv
from a2a_progress.sdk.adapter import read_envelope
from a2a_progress.serving import ServedAgent, Transport, create_client, serve_agent
from a2a_progress.serving import user_message as new_user_message
from support.scripted import (
    ScriptedAgent,
    Step,
    Turn,
    abort,
    cancel,
    complete,
    done,
    env,
    error,
    fail,
    output,
    raise_,
    raw,
    reached,
    reject,
    start,
    text,
    thinking,
    wait,
    wire,
)
from support.telemetry import MemoryTelemetry

__all__ = [
    "COMBINATIONS",
    "COMBINATION_IDS",
    "AgentTurn",
    "ScriptedAgent",
    "Step",
    "Telemetry",
    "abort",
    "all_telemetry_text",
    "attrs",
    "call",
    "cancel",
    "complete",
    "done",
    "drain",
    "env",
    "envelope_of",
    "error",
    "event_names",
    "events",
    "fail",
    "instrumented",
    "output",
    "parent_id",
    "pipelines",
    "raise_",
    "raw",
    "reached",
    "reject",
    "serving",
    "span_id",
    "start",
    "status",
    "subscribe_midway",
    "task_id_of",
    "text",
    "thinking",
    "trace_id",
    "user_message",
    "wait",
    "wire",
]

COMBINATIONS: list[tuple[Transport, bool]] = [
    (transport, v0_3) for transport in ("jsonrpc", "rest", "grpc") for v0_3 in (False, True)
]
COMBINATION_IDS = [f"{transport}-{'v0.3' if v0_3 else '1.0'}" for transport, v0_3 in COMBINATIONS]

_SPAN_SDK_LOGGER = "opentelemetry.sdk.trace"
_DOUBLE_END = "Calling end() on an ended span."


# -- telemetry -------------------------------------------------------------------------------


class _DoubleEndCounter(logging.Handler):
    """Counts the SDK's warning for a second ``end()`` on a span: the ledger cannot see those."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage() == _DOUBLE_END:
            self.count += 1


class Telemetry(MemoryTelemetry):
    """In-memory trace and metric pipelines, and queries over what they received."""

    def __init__(self) -> None:
        super().__init__()
        self.double_ends = _DoubleEndCounter()
        self.instrumentor = A2AProgressInstrumentor()

    def instrument(self, **kwargs: Any) -> None:
        """(Re-)instrument on these providers with ``kwargs`` (settings are read now).

        Content capture is on unless ``kwargs`` say otherwise: these tests read the content.
        ``capture_content=None`` leaves it to the environment and the default (off). So are
        mirror spans: these tests read each side's view of a call (``mirror_spans=None``: the
        default, no caller span of a call the callee records; test_counted_once.py).
        """
        self.uninstrument()
        kwargs.setdefault("capture_content", True)
        kwargs.setdefault("mirror_spans", True)
        self.instrumentor.instrument(
            tracer_provider=self.tracer_provider, meter_provider=self.meter_provider, **kwargs
        )

    def uninstrument(self) -> None:
        if self.instrumentor.is_instrumented_by_opentelemetry:
            self.instrumentor.uninstrument()

    # -- spans ---------------------------------------------------------------------------------

    def turn_spans(self, observer: str) -> list[ReadableSpan]:
        """CLIENT spans (caller) or SERVER spans (callee); not the opt-in invoke_agent spans."""
        kind = SpanKind.CLIENT if observer == conv.OBSERVER_CALLER else SpanKind.SERVER
        return [
            span
            for span in self.spans()
            if span.kind is kind
            and attrs(span).get(conv.GEN_AI_OPERATION_NAME) != conv.OPERATION_INVOKE_AGENT
        ]

    def turn_span(self, observer: str) -> ReadableSpan:
        [span] = self.turn_spans(observer)
        return span

    def tool_spans(self, observer: str | None = None) -> list[ReadableSpan]:
        """``execute_tool`` spans, in start order, of one side or both."""
        tools = [
            span
            for span in self.spans()
            if span.name.startswith(conv.TOOL_SPAN_PREFIX + " ")
            and (observer is None or attrs(span).get(conv.OBSERVER) == observer)
        ]
        return sorted(tools, key=lambda span: span.start_time or 0)

    def tool_span(self, observer: str) -> ReadableSpan:
        [span] = self.tool_spans(observer)
        return span

    def assert_each_span_ended_once(self) -> None:
        super().assert_each_span_ended_once()
        assert self.double_ends.count == 0

    # -- metrics -------------------------------------------------------------------------------

    def metrics(self, name: str) -> list[Metric]:
        """The metric ``name`` as collected now (cumulative), once per scope."""
        data = self.reader.get_metrics_data()
        return [
            metric
            for resource in (data.resource_metrics if data is not None else ())
            for scope in resource.scope_metrics
            for metric in scope.metrics
            if metric.name == name
        ]

    def points(self, name: str) -> list[tuple[dict[str, Any], Any]]:
        """``(attributes, data point)`` of the metric ``name`` (cumulative)."""
        return [
            (dict(point.attributes or {}), point)
            for metric in self.metrics(name)
            for point in metric.data.data_points
        ]

    def counts(self, name: str, key: str, observer: str) -> dict[str, int]:
        """A counter's values by attribute ``key``, for one observer."""
        return {
            attributes[key]: point.value
            for attributes, point in self.points(name)
            if attributes.get(conv.OBSERVER) == observer
        }


@contextlib.contextmanager
def pipelines() -> Iterator[Telemetry]:
    """Fresh in-memory pipelines, counting second ends of spans."""
    result = Telemetry()
    sdk_logger = logging.getLogger(_SPAN_SDK_LOGGER)
    sdk_logger.addHandler(result.double_ends)
    try:
        yield result
    finally:
        sdk_logger.removeHandler(result.double_ends)
        result.shutdown()


@contextlib.contextmanager
def instrumented() -> Iterator[Telemetry]:
    """The bridge instrumented on fresh pipelines; every span must end exactly once."""
    with pipelines() as result:
        result.instrument()
        try:
            yield result
            result.assert_each_span_ended_once()
        finally:
            result.uninstrument()


def attrs(item: ReadableSpan | Any) -> dict[str, Any]:
    """A span's or span event's attributes as a plain dict."""
    return dict(item.attributes or {})


def span_id(span: ReadableSpan) -> int:
    assert span.context is not None
    return span.context.span_id


def trace_id(span: ReadableSpan) -> int:
    assert span.context is not None
    return span.context.trace_id


def parent_id(span: ReadableSpan) -> int | None:
    return None if span.parent is None else span.parent.span_id


def events(span: ReadableSpan, name: str | None = None) -> list[dict[str, Any]]:
    """The attributes of a span's events (of one name), in order; ``exception`` excluded."""
    return [
        attrs(event)
        for event in span.events
        if (name is None and event.name != "exception") or event.name == name
    ]


def event_names(span: ReadableSpan) -> list[str]:
    return [event.name for event in span.events]


def status(span: ReadableSpan) -> StatusCode:
    return span.status.status_code


def all_telemetry_text(telemetry: Telemetry) -> list[str]:
    """Every string the spans carry: names, status descriptions, attribute and event values."""
    texts: list[str] = []

    def add(value: object) -> None:
        if isinstance(value, str):
            texts.append(value)
        elif isinstance(value, Sequence):
            for item in value:
                add(item)

    for span in telemetry.spans():
        texts.append(span.name)
        texts.append(span.status.description or "")
        for value in attrs(span).values():
            add(value)
        for event in span.events:
            texts.append(event.name)
            for value in attrs(event).values():
                add(value)
    return texts


# -- the scripted agent (tests/support's) -------------------------------------------------------

AgentTurn = Turn
"""What a step works with (the name these tests use for :class:`support.scripted.Turn`)."""


@contextlib.asynccontextmanager
async def serving(
    script: Sequence[Step] | ScriptedAgent, **emitter_options: Any
) -> AsyncIterator[ServedAgent]:
    """Serve a :class:`ScriptedAgent` (or one running the steps ``script``) on loopback."""
    agent = (
        script if isinstance(script, ScriptedAgent) else ScriptedAgent(script, **emitter_options)
    )
    async with serve_agent(agent) as served:
        yield served


# -- the caller ----------------------------------------------------------------------------------


def user_message(text: str = "hello", *, return_immediately: bool = False) -> SendMessageRequest:
    """:func:`a2a_progress.serving.user_message`, with a default text."""
    return new_user_message(text, return_immediately=return_immediately)


async def call(
    card: AgentCard,
    request: SendMessageRequest | None = None,
    *,
    streaming: bool = True,
) -> list[StreamResponse]:
    """One send_message call, read to its end."""
    async with create_client(card, streaming=streaming) as client:
        return await drain(client, request)


async def drain(
    client: Client,
    request: SendMessageRequest | None = None,
    *,
    context: ClientCallContext | None = None,
) -> list[StreamResponse]:
    """One send_message call on ``client``, read to its end."""
    stream = client.send_message(request or user_message(), context=context)
    return [event async for event in stream]


async def subscribe_midway(
    card: AgentCard, started: asyncio.Event, gate: asyncio.Event
) -> tuple[StreamResponse, list[StreamResponse]]:
    """Send a message that returns at once, wait for the agent to reach ``started``, subscribe
    to its task and open ``gate`` (the subscription is live: the agent goes on); the submitted
    task and every event of the subscription."""
    async with create_client(card, streaming=False) as unary, create_client(card) as client:
        [submitted] = await drain(unary, user_message(return_immediately=True))
        await started.wait()
        subscribed = []
        async for event in client.subscribe(SubscribeToTaskRequest(id=submitted.task.id)):
            subscribed.append(event)
            gate.set()
    return submitted, subscribed


def envelope_of(event: StreamResponse) -> Envelope | None:
    """The valid envelope an event carries, if any."""
    found = read_envelope(event)
    return found if isinstance(found, Envelope) else None


def task_id_of(events: Sequence[StreamResponse]) -> str:
    for event in events:
        which = event.WhichOneof("payload")
        if which == "task":
            return event.task.id
        if which == "status_update":
            return event.status_update.task_id
    raise AssertionError("no task in the stream")
