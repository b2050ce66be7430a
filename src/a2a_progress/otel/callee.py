"""Callee-side hooks: observe every event an agent executor enqueues, under the caller's trace.

a2a-sdk subclasses override ``AgentExecutor.execute``, so patching the base class sees nothing.
Instead the request handler's constructor is wrapped and the executor it is given is proxied; the
proxy hands ``execute()`` a proxy of its event queue whose ``enqueue_event`` passes each event on
unchanged, then shows it to the bridge. The handler's send methods are wrapped only to learn which
A2A method started the execution.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any, Final, cast

import wrapt
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandlerV2, LegacyRequestHandler
from opentelemetry import propagate, trace
from opentelemetry.context import Context
from opentelemetry.instrumentation.utils import unwrap
from opentelemetry.trace import SpanKind

from a2a_progress.consumer import EndReason
from a2a_progress.otel import conventions as conv
from a2a_progress.otel.bridge import (
    A2AEvent,
    Bridge,
    TurnTelemetry,
    bounded,
    peer_name,
    warn_once,
)
from a2a_progress.otel.config import NAME_MAX_LENGTH, SIDE_CALLEE

_HANDLER_CLASSES: Final = (DefaultRequestHandlerV2, LegacyRequestHandler)

# The A2A method being served, set while the handler's send method runs. a2a-sdk starts
# execute() in a copy of the sending request's context, so the executor proxy can read it.
_inbound_method: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "a2a_progress_inbound_method", default=None
)

# Callee turns by task id, so cancel()'s events (CANCELED) reach the turn execute() opened.
_turns_by_task: dict[str, TurnTelemetry] = {}


def _trace_carrier(context: RequestContext) -> dict[str, str]:
    """Propagation headers of the inbound call: HTTP headers, or gRPC invocation metadata."""
    state = context.call_context.state if context.call_context is not None else {}
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


def _parent_context(context: RequestContext) -> Context | None:
    """The caller's trace context when it sent a valid one, else the current context."""
    extracted = propagate.extract(_trace_carrier(context))
    if trace.get_current_span(extracted).get_span_context().is_valid:
        return extracted
    return None


class _ObservedQueue(wrapt.ObjectProxy[EventQueue]):
    """The executor's event queue: every event goes on unchanged, then the bridge sees it."""

    def __init__(self, queue: EventQueue, turn: TurnTelemetry) -> None:
        super().__init__(queue)
        self._self_turn = turn

    async def enqueue_event(self, event: A2AEvent) -> None:
        await self.__wrapped__.enqueue_event(event)
        self._self_turn.feed(event)


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
        return self._self_bridge.start_turn(
            method or conv.EXECUTE_SPAN_FALLBACK,
            kind=SpanKind.SERVER,
            observer=conv.OBSERVER_CALLEE,
            parent=_parent_context(context),
            attributes=attributes,
        )

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Run the wrapped ``execute()`` with an observed queue, inside an execution span."""
        turn: TurnTelemetry | None = None
        if self._self_bridge.observes(SIDE_CALLEE):
            try:
                turn = self._start_turn(context)
            except Exception:  # noqa: BLE001 - never let telemetry fail the agent
                warn_once("callee start")
        if turn is None:
            await self.__wrapped__.execute(context, event_queue)
            return
        task_id = context.task_id or ""
        _turns_by_task[task_id] = turn
        try:
            # The proxy is an EventQueue to every caller: wrapt forwards all else to the queue.
            observed = cast("EventQueue", _ObservedQueue(event_queue, turn))
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
            if _turns_by_task.get(task_id) is turn:
                del _turns_by_task[task_id]

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Run the wrapped ``cancel()``; what it enqueues is seen by the running turn."""
        turn = _turns_by_task.get(context.task_id or "")
        queue = (
            event_queue if turn is None else cast("EventQueue", _ObservedQueue(event_queue, turn))
        )
        await self.__wrapped__.cancel(context, queue)


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
            warn_once("request handler")
        wrapped(*args_list, **kwargs)

    return wrapper


async def _send_as(
    method: str, wrapped: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    token = _inbound_method.set(method)
    try:
        return await wrapped(*args, **kwargs)
    finally:
        _inbound_method.reset(token)


async def _stream_as(method: str, stream: AsyncIterator[Any]) -> AsyncIterator[Any]:
    token = _inbound_method.set(method)
    try:
        async for event in stream:
            yield event
    finally:
        aclose = getattr(stream, "aclose", None)
        if aclose is not None:
            await aclose()
        # Finalized from another context (generator GC): there is nothing to restore.
        with contextlib.suppress(ValueError):
            _inbound_method.reset(token)


def _on_message_send(
    wrapped: Callable[..., Any], instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    return _send_as(conv.METHOD_SEND, wrapped, args, kwargs)


def _on_message_send_stream(
    wrapped: Callable[..., Any], instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    return _stream_as(conv.METHOD_SEND_STREAMING, wrapped(*args, **kwargs))


def instrument(bridge: Bridge) -> None:
    """Patch the request handler classes."""
    for cls in _HANDLER_CLASSES:
        wrapt.wrap_function_wrapper(cls, "__init__", _wrap_handler_init(bridge))
        wrapt.wrap_function_wrapper(cls, "on_message_send", _on_message_send)
        wrapt.wrap_function_wrapper(cls, "on_message_send_stream", _on_message_send_stream)


def uninstrument() -> None:
    """Remove the patches; executors proxied earlier pass through once the bridge is off."""
    for cls in _HANDLER_CLASSES:
        for name in ("__init__", "on_message_send", "on_message_send_stream"):
            unwrap(cls, name)
