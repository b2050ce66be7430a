"""The benchmark agent, an in-process transport, and the telemetry set-ups the benches share.

The agent is a real :class:`AgentExecutor` using :class:`ProgressEmitter`: per tool call it emits
thinking, the ``tool_call`` start, progress text and the ``done``, i.e. 4 working updates, with
texts of realistic sizes (workload.py), then completes the turn.
"""

from __future__ import annotations

import random
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, NoReturn, Protocol

from a2a.client import BaseClient, ClientCallContext, ClientConfig
from a2a.client.transports.base import ClientTransport
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.context import ServerCallContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import (
    AgentCard,
    SendMessageRequest,
    StreamResponse,
    TaskState,
)
from a2a.utils.proto_utils import to_stream_response
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter

from a2a_progress import DEFAULT_REDACTOR, ProgressEmitter, Redactor, open_task
from a2a_progress.serving import build_agent_card, user_message
from workload import prose

UPDATES_PER_TOOL = 4
"""Working updates per tool call: thinking, tool_call running, text, tool_call done."""

TOOLS = ("search_code", "read_file", "run_tests", "ci_status", "query_db")
"""The tools the agent calls, in turn."""


def call_id(task_id: str, index: int) -> str:
    """The id of the turn's ``index``-th tool call: unique per turn, as frameworks make them
    (a cache keyed by ids would see every id once)."""
    return f"call-{task_id[:13]}-{index}"


class TurnObserver(Protocol):
    """Told by the agent what it emits (floor.py's SDK floor): called after each working update
    with its text (empty for a tool call's start and end), ``end()`` after the last."""

    def __call__(self, content: str) -> None: ...

    def end(self) -> None: ...


class ScriptedAgent(AgentExecutor):
    """Runs the number of tool calls the request's text asks for (``"tools=N"``).

    ``observer``, if given, opens a :class:`TurnObserver` per turn (the SDK floor's callee side).
    ``redactor`` is the emitter's (``None``: its texts sent unmasked, the baseline without the
    emitter's redaction that bench_ir.py's ``off_unredacted`` arm counts).
    """

    def __init__(
        self,
        seed: int = 13,
        observer: Callable[[RequestContext], TurnObserver] | None = None,
        *,
        scale: float = 1.0,
        redactor: Redactor | None = DEFAULT_REDACTOR,
    ) -> None:
        self._observer = observer
        self._redactor = redactor
        rng = random.Random(seed)
        # ``scale``: text sizes (thinking 150-1,500 characters, notes 30-300) times this.
        self._thoughts = [prose(rng, int(150 * scale), int(1500 * scale)) for _ in range(32)]
        self._notes = [prose(rng, int(30 * scale), int(300 * scale)) for _ in range(32)]

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.task_id is not None
        assert context.context_id is not None
        assert context.message is not None
        tools = int(context.get_user_input().removeprefix("tools="))
        updater = await open_task(context, event_queue)
        observe = None if self._observer is None else self._observer(context)
        async with ProgressEmitter(updater, redactor=self._redactor) as progress:
            for index in range(tools):
                thought, note = self._thoughts[index % 32], self._notes[index % 32]
                await progress.thinking(thought)
                if observe is not None:
                    observe(thought)
                async with progress.tool_call(TOOLS[index % 5], call_id(context.task_id, index)):
                    if observe is not None:
                        observe("")
                    await progress.text(note)
                    if observe is not None:
                        observe(note)
                if observe is not None:
                    observe("")
            await progress.complete(f"ran {tools} tools")
        if observe is not None:
            observe.end()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError


def request(tools: int) -> SendMessageRequest:
    """A new turn asking for ``tools`` tool calls."""
    return user_message(f"tools={tools}")


@dataclass
class TurnResult:
    """What the caller saw of one turn."""

    events: int = 0
    states: list[int] = field(default_factory=list)

    @property
    def completed(self) -> bool:
        return bool(self.states) and self.states[-1] == TaskState.TASK_STATE_COMPLETED


TurnRunner = Callable[[Any, int], Awaitable[TurnResult]]
"""Runs one turn of so many tool calls through a client (run_turn, floor.floor_turn)."""


async def run_turn(client: Any, tools: int) -> TurnResult:
    """Send one streaming turn and read it to the end, as a plain caller does."""
    result = TurnResult()
    stream: AsyncIterator[StreamResponse] = client.send_message(request(tools))
    async for event in stream:
        result.events += 1
        if event.HasField("status_update"):
            result.states.append(event.status_update.status.state)
    return result


class InProcessTransport(ClientTransport):
    """A client transport that calls the request handler directly: no network, no encoding.

    Used by the in-process bench so that only the a2a-sdk stacks and our hooks are timed. The
    call's service parameters become the server context's headers, as the HTTP routes make
    them, so trace context still reaches the callee.
    """

    def __init__(self, handler: DefaultRequestHandler) -> None:
        self._handler = handler

    async def send_message_streaming(
        self, request: SendMessageRequest, *, context: ClientCallContext | None = None
    ) -> AsyncGenerator[StreamResponse]:
        headers = dict(context.service_parameters or {}) if context is not None else {}
        server_context = ServerCallContext(state={"headers": headers})
        async for event in self._handler.on_message_send_stream(request, server_context):
            yield to_stream_response(event)

    async def close(self) -> None:
        return None

    def _unsupported(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise NotImplementedError("the bench only streams")

    send_message = get_task = list_tasks = cancel_task = _unsupported
    create_task_push_notification_config = _unsupported
    get_task_push_notification_config = _unsupported
    list_task_push_notification_configs = _unsupported
    delete_task_push_notification_config = _unsupported
    subscribe = get_extended_agent_card = _unsupported


def in_process_client(agent: AgentExecutor) -> tuple[BaseClient, DefaultRequestHandler]:
    """A real handler for ``agent`` and a real client wired to it in process.

    Build it after instrumenting: the instrumentor proxies executors given to handlers built
    while it is on.
    """
    card: AgentCard = build_agent_card(
        "bench agent", description="benchmark", http_url="http://in-process", grpc_target=None
    )
    handler = DefaultRequestHandler(agent, InMemoryTaskStore(), card)
    client = BaseClient(card, ClientConfig(streaming=True), InProcessTransport(handler), [])
    return client, handler


def tracer_provider(
    service: str, exporter: SpanExporter, *, schedule_delay_millis: float | None = None
) -> TracerProvider:
    """A provider exporting through a default BatchSpanProcessor, as a deployment has
    (``schedule_delay_millis``: its export timer, the SDK's default when None)."""
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(
        BatchSpanProcessor(exporter, schedule_delay_millis=schedule_delay_millis)
    )
    return provider


def cpu_and_wall(fn: Callable[[], None]) -> tuple[float, float]:
    """(process CPU seconds, all threads; wall seconds) that ``fn()`` took."""
    cpu, wall = time.process_time(), time.perf_counter()
    fn()
    return time.process_time() - cpu, time.perf_counter() - wall
