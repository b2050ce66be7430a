"""The a2a-sdk 1.x hook points the instrumentor wraps, and its trace-context carriers.

Which classes' constructors receive the agent executor, which methods are a request's entry
points (where the caller's trace context is attached), which client methods are calls, and how
trace headers ride on a client call (service parameters: HTTP headers or gRPC metadata).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from a2a.client import BaseClient, ClientCallContext
from a2a.server.request_handlers import DefaultRequestHandlerV2, LegacyRequestHandler
from a2a.server.routes.jsonrpc_dispatcher import JsonRpcDispatcher
from a2a.server.routes.rest_dispatcher import RestDispatcher
from a2a.types.a2a_pb2 import AgentCard, Message

HANDLER_CLASSES: Final[tuple[type, ...]] = (DefaultRequestHandlerV2, LegacyRequestHandler)
"""Request handlers whose constructor takes the agent executor (first) and card (third)."""

HANDLER_CARD_INDEX: Final[int | None] = 2

AGENT_CARD_CLASS: Final[type] = AgentCard
"""The SDK's agent card type."""
"""Where the handler constructor takes the agent card positionally (None: it takes none)."""

HANDLER_METHODS: Final = {
    "on_message_send": "send",
    "on_message_send_stream": "stream",
    "on_subscribe_to_task": "subscribe",
    "on_get_task": "get",
    "on_list_tasks": "list",
    "on_cancel_task": "cancel",
}
"""The request handler's entry points, by what each does."""

TRANSPORT_ENTRY_POINTS: Final[Mapping[type, tuple[str, ...]]] = {
    JsonRpcDispatcher: ("handle_requests",),
    RestDispatcher: (
        "on_message_send",
        "on_message_send_stream",
        "on_subscribe_to_task",
        "on_cancel_task",
        "on_get_task",
        "list_tasks",
    ),
}
"""Where an HTTP request first reaches the SDK (each takes the Starlette request)."""

CLIENT_CLASS: Final = BaseClient
"""The client whose calls the caller side wraps."""

CLIENT_STREAM_CALLS: Final = {"send_message": "send", "subscribe": "subscribe"}
"""Client calls that return the turn's event stream."""

CLIENT_TASK_CALLS: Final = ("get_task", "cancel_task")
"""Client calls that only carry the trace context."""


def with_headers(kwargs: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
    """``kwargs`` of a client call whose ``context`` also sends ``headers`` (service parameters:
    HTTP headers or gRPC metadata); the caller's own values win, its context is not changed."""
    given = kwargs.get("context")
    if given is None:
        call_context = ClientCallContext(service_parameters=headers)
    else:
        call_context = given.model_copy()
        call_context.service_parameters = {**headers, **(given.service_parameters or {})}
    return {**kwargs, "context": call_context}


def card_interfaces(card: Any) -> list[tuple[str, str]]:
    """``(url, protocol_version)`` of each interface an agent card lists, preferred first."""
    return [(str(i.url), str(i.protocol_version)) for i in card.supported_interfaces]


def sent_message(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Message | None:
    """The message a client's ``send_message`` call sends (None for other calls)."""
    request = args[0] if args else kwargs.get("request")
    message = getattr(request, "message", None)
    return message if isinstance(message, Message) else None


def instrument_transports() -> None:
    """Nothing to do on 1.x: every transport sends the call context's service parameters."""


def uninstrument_transports() -> None:
    """Nothing to undo on 1.x."""
