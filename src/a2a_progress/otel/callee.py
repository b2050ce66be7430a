"""Callee-side hooks: observe every event an agent executor enqueues, under the caller's trace.

a2a-sdk subclasses override ``AgentExecutor.execute``, so patching the base class sees nothing.
Instead the request handler's constructor is wrapped and the executor it is given is proxied; the
proxy hands ``execute()`` a proxy of its event queue whose ``enqueue_event`` passes each event on
unchanged, then shows it to the bridge.

``execute()`` starts in the caller's trace context (see `a2a_progress.otel.inbound`) and
runs with its SERVER span current; each tool's span is current while the tool runs (the rule is
in `a2a_progress.otel.tool_context`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Final, cast

import wrapt
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.instrumentation.utils import unwrap
from opentelemetry.trace import SpanKind

from a2a_progress.consumer import EndReason
from a2a_progress.otel import conventions as conv
from a2a_progress.otel import tool_context
from a2a_progress.otel.announce import (
    AGENTS_OWN_KEPT,
    TURN_OWN_KEPT,
    Announcer,
    announce_turn,
    turn_value,
)
from a2a_progress.otel.bridge import Bridge, ObservedTurn
from a2a_progress.otel.card import card_attributes
from a2a_progress.otel.config import SIDE_CALLEE
from a2a_progress.otel.counting import CountingTurn
from a2a_progress.otel.inbound import inbound_context, served_method
from a2a_progress.otel.tool_context import current_tools
from a2a_progress.otel.tool_span import ToolSpan
from a2a_progress.sdk.adapter import A2AEvent, AgentExecutor, EventQueue, RequestContext
from a2a_progress.sdk.hooks import AGENT_CARD_CLASS, HANDLER_CARD_INDEX, HANDLER_CLASSES

_HANDLER_CLASSES: Final = HANDLER_CLASSES

# wrapt 2 is generic for mypy; wrapt 1.x (beside OpenTelemetry 1.39/1.40) is not at run time.
if TYPE_CHECKING:
    _QueueProxy = wrapt.ObjectProxy[EventQueue]
    _ExecutorProxy = wrapt.ObjectProxy[AgentExecutor]
else:
    _QueueProxy = _ExecutorProxy = wrapt.ObjectProxy


class _QueueState:
    """What an observed queue reads for each update, in one attribute of the proxy: a read of
    a wrapt proxy's own attributes goes through the ``__getattr__`` hook of wrapt's C type
    (~1 k instructions each, which the interpreter cannot specialize), a read of this is plain.
    """

    __slots__ = ("announcer", "bridge", "queue", "turn", "turn_value")

    def __init__(self, queue: EventQueue, turn: ObservedTurn, bridge: Bridge, *, announce: bool):
        self.queue = queue
        self.turn = turn
        self.bridge = bridge
        self.announcer = Announcer()
        # The turn's span, until a status update has announced it (None: nothing to announce).
        self.turn_value = turn_value(turn.span) if announce else None

    def announce_tool(self, event: A2AEvent) -> None:
        """Announce the tool call ``event`` opened (the turn's ``announcement``), once."""
        turn = self.turn
        context, turn.announcement = turn.announcement, None
        if context is None:
            return
        try:
            if not self.announcer.announce(event, context):
                self.bridge.warn_once("tool span announcement kept", AGENTS_OWN_KEPT)
        except Exception:  # noqa: BLE001 - never let telemetry fail the agent
            self.bridge.warn_once("tool span announcement")

    def announce_turn(self, event: A2AEvent, value: str) -> None:
        """Announce the turn's span (``value``) in ``event``, if it is a status update."""
        try:
            announced = announce_turn(event, value)
        except Exception:  # noqa: BLE001 - never let telemetry fail the agent
            self.bridge.warn_once("turn span announcement")
            self.turn_value = None  # not tried again: the caller writes its events too
            return
        if announced is False:
            self.bridge.warn_once("turn span announcement kept", TURN_OWN_KEPT)
        if announced is not None:
            self.turn_value = None

    async def enqueue_then_apply(self, event: A2AEvent, opened: list[ToolSpan] | None) -> None:
        """Enqueue ``event``, then make current what the rule says (`after_enqueue`)."""
        await self.queue.enqueue_event(event)
        self.after_enqueue(opened)

    def after_enqueue(self, opened: list[ToolSpan] | None) -> None:
        """Once an update is enqueued: make current what the rule says (`tool_context`)."""
        try:
            tool_context.after_enqueue(opened)
        except Exception:  # noqa: BLE001 - never let telemetry fail the agent
            self.bridge.warn_once("tool context")


class _ObservedQueue(_QueueProxy):
    """The executor's event queue: the bridge sees every event, then it goes on.

    An update that opens a tool span goes on with that span's context announced in its own
    metadata, and ``execute()``'s first status update with the turn's span, when sampled (see
    `a2a_progress.otel.announce`); anything else goes on unchanged. The tool spans an event
    opens or closes change the current span of the enqueuing task.
    """

    def __init__(
        self, queue: EventQueue, turn: ObservedTurn, bridge: Bridge, *, announce: bool = False
    ) -> None:
        super().__init__(queue)
        self._self_state = _QueueState(queue, turn, bridge, announce=announce)

    async def enqueue_event(self, event: A2AEvent) -> None:
        state = self._self_state
        turn = state.turn
        opened = turn.feed(event)
        if state.turn_value is not None:
            state.announce_turn(event, state.turn_value)
        if turn.announcement is not None:
            state.announce_tool(event)
        await state.queue.enqueue_event(event)
        if opened is None and not current_tools():
            return  # most updates: no tool opened, none current in this task
        state.after_enqueue(opened)


class _CountedQueue(_ObservedQueue):
    """The event queue of a turn nobody records (a `CountingTurn`): an update is fed, carries
    the announcement of a tool call it opens, and is handed on. Its feed opens no tool span
    and its turn span, not sampled, is never announced, so nothing is left to do once the
    update is enqueued: ``enqueue_event`` is fed when called and returns the queue's own
    coroutine, with no coroutine of ours around it (this runs for every update of
    every unsampled turn; ~3 k instructions per update less than awaiting it in ours)."""

    def enqueue_event(self, event: A2AEvent) -> Coroutine[Any, Any, None]:
        state = self._self_state
        turn = state.turn
        turn.feed(event)
        if turn.announcement is not None:
            state.announce_tool(event)
        if current_tools():
            # Tools a recorded turn made current in this task (an agent enqueuing for two
            # turns from one task): the rule still drops those that closed.
            return state.enqueue_then_apply(event, None)
        return state.queue.enqueue_event(event)


def _observed(
    queue: EventQueue, turn: ObservedTurn, bridge: Bridge, *, announce: bool
) -> EventQueue:
    """``queue`` proxied for ``turn`` (the proxy is an EventQueue to every caller: wrapt
    forwards all else to the queue)."""
    if type(turn) is CountingTurn:
        return cast("EventQueue", _CountedQueue(queue, turn, bridge))
    return cast("EventQueue", _ObservedQueue(queue, turn, bridge, announce=announce))


class InstrumentedExecutor(_ExecutorProxy):
    """An agent executor that reports its turns to the bridge; everything else passes through."""

    def __init__(self, executor: AgentExecutor, bridge: Bridge, card: Any) -> None:
        super().__init__(executor)
        self._self_bridge = bridge
        # The local card's name, description and version (bounded once).
        self._self_agent = card_attributes(card)

    def _start_turn(self, context: RequestContext) -> ObservedTurn:
        method = served_method()
        attributes: dict[str, Any] = {}
        if method is not None:
            attributes[conv.A2A_METHOD_NAME] = method
        # The caller may choose the ids: they are masked like every name a peer sends.
        names = self._self_bridge.names
        if context.task_id:
            attributes[conv.A2A_TASK_ID] = names.name(context.task_id)
        if context.context_id:
            attributes[conv.GEN_AI_CONVERSATION_ID] = names.name(context.context_id)
        message = context.message
        if message is not None and message.message_id:
            attributes[conv.A2A_MESSAGE_ID] = names.name(message.message_id)
        attributes.update(self._self_agent)
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
        turn: ObservedTurn | None = None
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
            await self.__wrapped__.execute(
                context, _observed(event_queue, turn, bridge, announce=True)
            )
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
            await self.__wrapped__.cancel(
                context, _observed(event_queue, turn, bridge, announce=False)
            )
        finally:
            otel_context.detach(token)


def _wrap_handler_init(bridge: Bridge) -> Callable[..., None]:
    def wrapper(
        wrapped: Callable[..., None], instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> None:
        args_list = list(args)
        try:
            executor = kwargs["agent_executor"] if "agent_executor" in kwargs else args_list[0]
            card = kwargs.get("agent_card")
            index = HANDLER_CARD_INDEX
            if card is None and index is not None and len(args_list) > index:
                card = args_list[index]
            if not isinstance(executor, InstrumentedExecutor):
                proxy = InstrumentedExecutor(
                    executor, bridge, card if isinstance(card, AGENT_CARD_CLASS) else None
                )
                if "agent_executor" in kwargs:
                    kwargs["agent_executor"] = proxy
                else:
                    args_list[0] = proxy
        except Exception:  # noqa: BLE001
            bridge.warn_once("request handler")
        wrapped(*args_list, **kwargs)

    return wrapper


def instrument(bridge: Bridge) -> None:
    """Patch the request handler classes."""
    for cls in _HANDLER_CLASSES:
        wrapt.wrap_function_wrapper(cls, "__init__", _wrap_handler_init(bridge))


def uninstrument() -> None:
    """Remove the patches; executors proxied earlier pass through once the bridge is off."""
    for cls in _HANDLER_CLASSES:
        unwrap(cls, "__init__")
