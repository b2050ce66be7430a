"""Callee-side hooks: observe every event an agent executor enqueues, under the caller's trace.

a2a-sdk subclasses override ``AgentExecutor.execute``, so patching the base class sees nothing.
Instead the request handler's constructor is wrapped and the executor it is given is proxied; the
proxy hands ``execute()`` a proxy of its event queue whose ``enqueue_event`` passes each event on
unchanged, then shows it to the bridge.

The handler's entry points (send, stream, get, list, cancel, subscribe) are wrapped at the request
boundary: each runs in the caller's trace context, extracted from the inbound HTTP headers or gRPC
metadata, so a2a-sdk's own spans and everything the server does for the request join the caller's
trace. ``execute()`` then runs with its SERVER span current, and each tool's span is current
while the tool runs (the rule is in :mod:`a2a_progress.otel.tool_context`).
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any, Final, cast

import wrapt
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandlerV2, LegacyRequestHandler
from opentelemetry import context as otel_context
from opentelemetry import propagate, trace
from opentelemetry.context import Context
from opentelemetry.instrumentation.utils import unwrap
from opentelemetry.trace import SpanKind

from a2a_progress.consumer import EndReason
from a2a_progress.otel import conventions as conv
from a2a_progress.otel import tool_context
from a2a_progress.otel.bridge import A2AEvent, Bridge, TurnTelemetry, bounded, peer_name
from a2a_progress.otel.config import NAME_MAX_LENGTH, SIDE_CALLEE

_HANDLER_CLASSES: Final = (DefaultRequestHandlerV2, LegacyRequestHandler)

# The handler entry points a caller reaches with its trace context: the A2A method each starts
# (named on the execution span; None when it starts no execution), and whether it streams.
_ENTRY_POINTS: Final[Mapping[str, tuple[str | None, bool]]] = {
    "on_message_send": (conv.METHOD_SEND, False),
    "on_message_send_stream": (conv.METHOD_SEND_STREAMING, True),
    "on_subscribe_to_task": (None, True),
    "on_get_task": (None, False),
    "on_list_tasks": (None, False),
    "on_cancel_task": (None, False),
}

# The A2A method being served, set while the handler's send method runs. a2a-sdk starts
# execute() in a copy of the sending request's context, so the executor proxy can read it.
_inbound_method: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "a2a_progress_inbound_method", default=None
)

# Set in the context a request boundary entered, to tell at its exit whether it is still there.
_boundary: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "a2a_progress_boundary", default=False
)


def _trace_carrier(state: Mapping[str, Any]) -> dict[str, str]:
    """Propagation headers of the inbound call: HTTP headers, or gRPC invocation metadata."""
    headers = state.get("headers")
    if isinstance(headers, Mapping):
        return {str(key).lower(): str(value) for key, value in headers.items()}
    grpc_context = state.get("grpc_context")
    if grpc_context is None:
        return {}
    carrier: dict[str, str] = {}
    for key, value in grpc_context.invocation_metadata() or ():
        if isinstance(value, bytes):  # binary "-bin" metadata carries no trace context
            continue
        carrier[str(key).lower()] = str(value)
    return carrier


def inbound_context(call_context: object) -> Context | None:
    """The caller's trace context to serve a request in; None to keep the current one.

    None when the caller sent no valid trace context, or when the current span already belongs
    to the caller's trace (a server instrumentation, ASGI or gRPC, continued it first).
    """
    state = getattr(call_context, "state", None)
    if not isinstance(state, Mapping):
        return None
    extracted = propagate.extract(_trace_carrier(state))
    remote = trace.get_current_span(extracted).get_span_context()
    if not remote.is_valid:
        return None
    current = trace.get_current_span().get_span_context()
    if current.is_valid and current.trace_id == remote.trace_id:
        return None
    return extracted


def _call_context(args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> object:
    return kwargs["context"] if "context" in kwargs else (args[1] if len(args) > 1 else None)


class _ObservedQueue(wrapt.ObjectProxy[EventQueue]):
    """The executor's event queue: every event goes on unchanged, then the bridge sees it.

    The tool spans an event opens or closes change the current span of the enqueuing task.
    """

    def __init__(self, queue: EventQueue, turn: TurnTelemetry, bridge: Bridge) -> None:
        super().__init__(queue)
        self._self_turn = turn
        self._self_bridge = bridge

    async def enqueue_event(self, event: A2AEvent) -> None:
        await self.__wrapped__.enqueue_event(event)
        opened = self._self_turn.feed(event)
        try:
            tool_context.after_enqueue(opened)
        except Exception:  # noqa: BLE001 - never let telemetry fail the agent
            self._self_bridge.warn_once("tool context")


class InstrumentedExecutor(wrapt.ObjectProxy[AgentExecutor]):
    """An agent executor that reports its turns to the bridge; everything else passes through."""

    def __init__(self, executor: AgentExecutor, bridge: Bridge, agent_name: str | None) -> None:
        super().__init__(executor)
        self._self_bridge = bridge
        self._self_agent_name = agent_name

    def _start_turn(self, context: RequestContext) -> TurnTelemetry:
        method = _inbound_method.get()
        attributes: dict[str, Any] = {}
        if method is not None:
            attributes[conv.A2A_METHOD_NAME] = method
        # The caller may choose the ids: they are masked like every name a peer sends.
        redactor = self._self_bridge.config.redactor
        if context.task_id:
            attributes[conv.A2A_TASK_ID] = peer_name(context.task_id, redactor)
        if context.context_id:
            attributes[conv.GEN_AI_CONVERSATION_ID] = peer_name(context.context_id, redactor)
        if self._self_agent_name:
            attributes[conv.GEN_AI_AGENT_NAME] = bounded(self._self_agent_name, NAME_MAX_LENGTH)[0]
        # The request boundary made the caller's context current; a handler that bypasses it
        # (a subclass overriding the send methods) still has the trace context in its request.
        parent = None
        if not trace.get_current_span().get_span_context().is_valid:
            parent = inbound_context(context.call_context)
        return self._self_bridge.start_turn(
            method or conv.EXECUTE_SPAN_FALLBACK,
            kind=SpanKind.SERVER,
            observer=conv.OBSERVER_CALLEE,
            parent=parent,
            attributes=attributes,
        )

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Run the wrapped ``execute()`` with an observed queue, its execution span current."""
        bridge = self._self_bridge
        turn: TurnTelemetry | None = None
        if bridge.observes(SIDE_CALLEE):
            try:
                turn = self._start_turn(context)
            except Exception:  # noqa: BLE001 - never let telemetry fail the agent
                bridge.warn_once("callee start")
        if turn is None:
            await self.__wrapped__.execute(context, event_queue)
            return
        task_id = context.task_id or ""
        bridge.turns_by_task[task_id] = turn
        # a2a-sdk runs execute() in a task of its own: attach and detach happen in that task, and
        # the detach also undoes whatever the tools attached in it.
        token = otel_context.attach(trace.set_span_in_context(turn.span))
        tools_token = tool_context.reset()
        try:
            # The proxy is an EventQueue to every caller: wrapt forwards all else to the queue.
            observed = cast("EventQueue", _ObservedQueue(event_queue, turn, bridge))
            await self.__wrapped__.execute(context, observed)
        except asyncio.CancelledError:
            turn.end(reason=EndReason.TURN_CANCELED)
            raise
        except BaseException as exc:
            turn.end(error=exc, reason=EndReason.TURN_FAILED)
            raise
        else:
            turn.end()
        finally:
            tool_context.restore(tools_token)
            otel_context.detach(token)
            if bridge.turns_by_task.get(task_id) is turn:
                del bridge.turns_by_task[task_id]

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Run the wrapped ``cancel()`` inside the running turn, which sees what it enqueues."""
        bridge = self._self_bridge
        turn = bridge.turns_by_task.get(context.task_id or "")
        if turn is None:
            await self.__wrapped__.cancel(context, event_queue)
            return
        token = otel_context.attach(trace.set_span_in_context(turn.span))
        try:
            observed = cast("EventQueue", _ObservedQueue(event_queue, turn, bridge))
            await self.__wrapped__.cancel(context, observed)
        finally:
            otel_context.detach(token)


def _wrap_handler_init(bridge: Bridge) -> Callable[..., None]:
    def wrapper(
        wrapped: Callable[..., None], instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> None:
        args_list = list(args)
        try:
            executor = kwargs["agent_executor"] if "agent_executor" in kwargs else args_list[0]
            card = kwargs.get("agent_card", args_list[2] if len(args_list) > 2 else None)
            if not isinstance(executor, InstrumentedExecutor):
                proxy = InstrumentedExecutor(executor, bridge, getattr(card, "name", None))
                if "agent_executor" in kwargs:
                    kwargs["agent_executor"] = proxy
                else:
                    args_list[0] = proxy
        except Exception:  # noqa: BLE001
            bridge.warn_once("request handler")
        wrapped(*args_list, **kwargs)

    return wrapper


class _Boundary:
    """One inbound request's trace context and A2A method, current while the handler serves it."""

    __slots__ = ("_tokens",)

    def __init__(self) -> None:
        self._tokens: tuple[Any, ...] = ()

    def enter(self, bridge: Bridge, method: str | None, args: tuple[Any, ...], kwargs: Any) -> None:
        method_token = _inbound_method.set(method) if method is not None else None
        parent = None
        if bridge.active:
            try:
                parent = inbound_context(_call_context(args, kwargs))
            except Exception:  # noqa: BLE001 - a bad header must not fail the request
                bridge.warn_once("request boundary")
        trace_token = None if parent is None else otel_context.attach(parent)
        self._tokens = (method_token, trace_token, _boundary.set(True))

    def exit(self) -> None:
        method_token, trace_token, mark = self._tokens
        try:
            _boundary.reset(mark)
        except ValueError:
            # Finalized in another context (an abandoned stream closed by the event loop's
            # generator finalizer): there is nothing of ours to restore there.
            return
        if trace_token is not None:
            otel_context.detach(trace_token)
        if method_token is not None:
            _inbound_method.reset(method_token)


def _entry_point(bridge: Bridge, method: str | None, stream: bool) -> Callable[..., Any]:
    async def serve(wrapped: Callable[..., Any], args: tuple[Any, ...], kwargs: Any) -> Any:
        boundary = _Boundary()
        boundary.enter(bridge, method, args, kwargs)
        try:
            return await wrapped(*args, **kwargs)
        finally:
            boundary.exit()

    async def serve_stream(
        wrapped: Callable[..., Any], args: tuple[Any, ...], kwargs: Any
    ) -> AsyncIterator[Any]:
        # Called (not only iterated) inside the boundary: a2a-sdk's tracing starts its span for
        # a generator method when it is called.
        boundary = _Boundary()
        boundary.enter(bridge, method, args, kwargs)
        inner: AsyncIterator[Any] | None = None
        try:
            inner = wrapped(*args, **kwargs)
            async for event in inner:
                yield event
        finally:
            try:
                aclose = getattr(inner, "aclose", None)
                if aclose is not None:
                    await aclose()
            finally:
                boundary.exit()

    def wrapper(
        wrapped: Callable[..., Any], instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        return (serve_stream if stream else serve)(wrapped, args, kwargs)

    return wrapper


def instrument(bridge: Bridge) -> None:
    """Patch the request handler classes."""
    for cls in _HANDLER_CLASSES:
        wrapt.wrap_function_wrapper(cls, "__init__", _wrap_handler_init(bridge))
        for name, (method, stream) in _ENTRY_POINTS.items():
            wrapt.wrap_function_wrapper(cls, name, _entry_point(bridge, method, stream))


def uninstrument() -> None:
    """Remove the patches; executors proxied earlier pass through once the bridge is off."""
    for cls in _HANDLER_CLASSES:
        for name in ("__init__", *_ENTRY_POINTS):
            unwrap(cls, name)
