"""Helpers of the OpenTelemetry bridge tests: in-memory pipelines, a scripted agent, span queries.

Agents are real a2a-sdk servers on loopback (``serve_agent``) that run a *script*: a list of
steps, each an async callable given the turn (:class:`AgentTurn`). Steps emit envelopes through the
real producer, or hand-built Parts and raw ``tfrs`` strings for hostile, out-of-order and
duplicate input; terminal steps use the bare ``TaskUpdater`` so that tool calls still open at the
turn's end are left for the bridge to close.
"""

import asyncio
import contextlib
import json
import logging
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from a2a.client import Client, ClientCallContext
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import (
    AgentCard,
    Message,
    Part,
    Role,
    SendMessageConfiguration,
    SendMessageRequest,
    StreamResponse,
    TaskState,
)
from opentelemetry.context import Context
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader, Metric
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from a2a_progress.carrier import TFRS_KEY, read_envelope
from a2a_progress.envelope import Envelope
from a2a_progress.otel import A2AProgressInstrumentor
from a2a_progress.otel import conventions as conv
from a2a_progress.producer import ProgressEmitter, ToolCall, open_task
from a2a_progress.serve import ServedAgent, Transport, create_client, serve_agent

COMBINATIONS: list[tuple[Transport, bool]] = [
    (transport, v0_3) for transport in ("jsonrpc", "rest", "grpc") for v0_3 in (False, True)
]
COMBINATION_IDS = [f"{transport}-{'v0.3' if v0_3 else '1.0'}" for transport, v0_3 in COMBINATIONS]

_SPAN_SDK_LOGGER = "opentelemetry.sdk.trace"
_DOUBLE_END = "Calling end() on an ended span."


# -- telemetry -------------------------------------------------------------------------------


class SpanLedger(SpanProcessor):
    """Which spans started and how often each ended (the SDK's exporter only sees first ends)."""

    def __init__(self) -> None:
        self.started: dict[int, str] = {}
        self.ended: Counter[int] = Counter()

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        self.started[span.context.span_id] = span.name

    def on_end(self, span: ReadableSpan) -> None:
        assert span.context is not None
        self.ended[span.context.span_id] += 1


class _DoubleEndCounter(logging.Handler):
    """Counts the SDK's warning for a second ``end()`` on a span: the ledger cannot see those."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage() == _DOUBLE_END:
            self.count += 1


@dataclass
class Telemetry:
    """In-memory trace and metric pipelines, and queries over what they received."""

    exporter: InMemorySpanExporter = field(default_factory=InMemorySpanExporter)
    ledger: SpanLedger = field(default_factory=SpanLedger)
    reader: InMemoryMetricReader = field(default_factory=InMemoryMetricReader)
    double_ends: _DoubleEndCounter = field(default_factory=_DoubleEndCounter)

    def __post_init__(self) -> None:
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(self.ledger)
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.meter_provider = MeterProvider(metric_readers=[self.reader])
        self.instrumentor = A2AProgressInstrumentor()

    def instrument(self, **kwargs: Any) -> None:
        """(Re-)instrument on these providers with ``kwargs`` (settings are read now)."""
        self.uninstrument()
        self.instrumentor.instrument(
            tracer_provider=self.tracer_provider, meter_provider=self.meter_provider, **kwargs
        )

    def uninstrument(self) -> None:
        if self.instrumentor.is_instrumented_by_opentelemetry:
            self.instrumentor.uninstrument()

    # -- spans ---------------------------------------------------------------------------------

    def spans(self) -> list[ReadableSpan]:
        return list(self.exporter.get_finished_spans())

    def turn_spans(self, observer: str) -> list[ReadableSpan]:
        """CLIENT spans (caller) or SERVER spans (callee)."""
        kind = SpanKind.CLIENT if observer == conv.OBSERVER_CALLER else SpanKind.SERVER
        return [span for span in self.spans() if span.kind is kind]

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

    def unended(self) -> list[str]:
        """Names of spans started and never ended."""
        return [
            name for span_id, name in self.ledger.started.items() if not self.ledger.ended[span_id]
        ]

    def assert_each_span_ended_once(self) -> None:
        assert self.unended() == []
        assert self.double_ends.count == 0
        assert all(count == 1 for count in self.ledger.ended.values())
        ids = [span_id(span) for span in self.spans()]
        assert len(ids) == len(set(ids))

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
        result.tracer_provider.shutdown()
        result.meter_provider.shutdown()


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


# -- the scripted agent ------------------------------------------------------------------------


@dataclass
class AgentTurn:
    """What a step works with: one ``execute()`` of the scripted agent."""

    context: RequestContext
    queue: EventQueue
    updater: TaskUpdater
    progress: ProgressEmitter
    calls: dict[str, ToolCall] = field(default_factory=dict)

    @property
    def task_id(self) -> str:
        return self.updater.task_id

    async def working(
        self, text: str, tfrs: object = None, *, message_id: str | None = None
    ) -> None:
        """A WORKING update with one Part: ``text`` and, unless None, ``metadata.tfrs``."""
        part = Part(text=text) if tfrs is None else Part(text=text, metadata={TFRS_KEY: tfrs})
        message = self.updater.new_agent_message([part])
        if message_id is not None:
            message.message_id = message_id
        await self.updater.update_status(TaskState.TASK_STATE_WORKING, message=message)


Step = Callable[[AgentTurn], Awaitable[object]]


def wire(
    kind: str,
    seq: object,
    status: str = "running",
    stream_key: str | None = None,
    *,
    version: object = 1,
    **payload: Any,
) -> str:
    """A hand-built envelope JSON string (no validation: tests send what they like)."""
    obj: dict[str, Any] = {
        "v": version,
        "kind": kind,
        "seq": seq,
        "status": status,
        "payload": payload,
    }
    if stream_key is not None:
        obj["streamKey"] = stream_key
    return json.dumps(obj)


def raw(tfrs: object, text: str = "fallback", *, message_id: str | None = None) -> Step:
    """Send a WORKING update carrying ``tfrs`` as is (None: a plain-text update)."""
    return lambda turn: turn.working(text, tfrs, message_id=message_id)


def env(
    kind: str, seq: int, status: str = "running", stream_key: str | None = None, **payload: Any
) -> Step:
    """Send one hand-built envelope (see :func:`wire`)."""
    return raw(wire(kind, seq, status, stream_key, **payload), f"{kind} {seq}")


def thinking(text: str) -> Step:
    return lambda turn: turn.progress.thinking(text)


def text(text: str) -> Step:
    return lambda turn: turn.progress.text(text)


def error(message: str) -> Step:
    return lambda turn: turn.progress.error(message)


def start(tool: str, call_id: str | None = None, *, stream_key: str | None = None) -> Step:
    """Start a tool call through the producer; later steps find it by ``call_id or tool``."""

    async def step(turn: AgentTurn) -> None:
        call = turn.progress.tool_call(tool, call_id, stream_key=stream_key)
        turn.calls[call_id or tool] = call
        await call

    return step


def output(key: str, chunk: str) -> Step:
    return lambda turn: turn.calls[key].output(chunk)


def done(key: str) -> Step:
    return lambda turn: turn.calls[key].done()


def abort(key: str, reason: str | None = None) -> Step:
    return lambda turn: turn.calls[key].aborted(reason)


def complete(reply: str = "all done") -> Step:
    return lambda turn: turn.updater.complete(turn.updater.new_agent_message([Part(text=reply)]))


def fail() -> Step:
    return lambda turn: turn.updater.failed()


def reject() -> Step:
    return lambda turn: turn.updater.reject()


def cancel() -> Step:
    return lambda turn: turn.updater.cancel()


def raise_(exc: BaseException) -> Step:
    async def step(turn: AgentTurn) -> None:
        raise exc

    return step


def wait(gate: asyncio.Event) -> Step:
    """Block the turn until the test opens ``gate``."""
    return lambda turn: gate.wait()


def reached(mark: asyncio.Event) -> Step:
    """Tell the test the script got here."""

    async def step(turn: AgentTurn) -> None:
        mark.set()

    return step


class ScriptedAgent(AgentExecutor):
    """Runs ``steps`` for every request, after announcing a SUBMITTED task.

    ``cancel()`` sends a bare CANCELED (tool calls still open are the bridge's to close).
    ``emitter_options`` go to each turn's :class:`ProgressEmitter` (e.g. ``redactor=None`` to
    let credentials through to the bridge, ``enable_output=True``).
    """

    def __init__(self, steps: Sequence[Step], **emitter_options: Any) -> None:
        self.steps = list(steps)
        self.emitter_options = emitter_options
        self.turns: list[AgentTurn] = []
        self.headers: list[dict[str, str]] = []

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.task_id is not None
        assert context.context_id is not None
        assert context.message is not None
        self.headers.append(_inbound_headers(context))
        updater = await open_task(context, event_queue)
        progress = ProgressEmitter(updater, **self.emitter_options)
        turn = AgentTurn(context, event_queue, updater, progress)
        self.turns.append(turn)
        for step in self.steps:
            await step(turn)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.task_id is not None
        assert context.context_id is not None
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


def _inbound_headers(context: RequestContext) -> dict[str, str]:
    state = context.call_context.state if context.call_context is not None else {}
    if "grpc_context" in state:
        metadata = state["grpc_context"].invocation_metadata() or ()
        return {str(key).lower(): str(value) for key, value in metadata}
    headers: Mapping[str, str] = state.get("headers", {})
    return {str(key).lower(): str(value) for key, value in headers.items()}


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
    request = SendMessageRequest(
        message=Message(role=Role.ROLE_USER, message_id=str(uuid.uuid4()), parts=[Part(text=text)])
    )
    if return_immediately:
        request.configuration.CopyFrom(SendMessageConfiguration(return_immediately=True))
    return request


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
