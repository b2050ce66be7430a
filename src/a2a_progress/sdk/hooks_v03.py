"""The a2a-sdk 0.3.x hook points the instrumentor wraps, and its trace-context carriers.

0.3's request handler (``DefaultRequestHandler``) takes the executor first and no card; its
entry points get a ``ServerCallContext`` whose state holds the HTTP headers or the gRPC
context, so the handler is the request boundary on every transport. The client's HTTP calls
take headers from the call context (``state["http_kwargs"]``); its gRPC calls build their
metadata in ``GrpcTransport._get_grpc_metadata``, which `instrument_transports` extends with
the current trace context.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

import wrapt
from a2a.client.base_client import BaseClient
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.types import AgentCard, Message
from opentelemetry import propagate
from opentelemetry.instrumentation.utils import unwrap

from a2a_progress.sdk.client_v03 import with_http_headers

HANDLER_CLASSES: Final[tuple[type, ...]] = (DefaultRequestHandler,)
"""Request handlers whose constructor takes the agent executor (first)."""

HANDLER_CARD_INDEX: Final[int | None] = None
"""0.3's handler takes no agent card."""

AGENT_CARD_CLASS: Final[type] = AgentCard
"""The SDK's agent card type."""

HANDLER_METHODS: Final = {
    "on_message_send": "send",
    "on_message_send_stream": "stream",
    "on_resubscribe_to_task": "subscribe",
    "on_get_task": "get",
    "on_cancel_task": "cancel",
}
"""The request handler's entry points, by what each does."""

TRANSPORT_ENTRY_POINTS: Final[Mapping[type, tuple[str, ...]]] = {}
"""None needed: the handler's call context carries the headers on every transport."""

CLIENT_CLASS: Final = BaseClient
"""The client whose calls the caller side wraps."""

CLIENT_STREAM_CALLS: Final = {"send_message": "send", "resubscribe": "subscribe"}
"""Client calls that return the turn's event stream."""

CLIENT_TASK_CALLS: Final = ("get_task", "cancel_task")
"""Client calls that only carry the trace context."""


def with_headers(kwargs: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
    """``kwargs`` of a client call whose HTTP requests also send ``headers``; the caller's own
    values win, its context is not changed (gRPC: see `instrument_transports`)."""
    return {**kwargs, "context": with_http_headers(kwargs.get("context"), headers)}


def card_interfaces(card: Any) -> list[tuple[str, str]]:
    """``(url, protocol_version)`` of each interface an agent card lists, preferred first."""
    version = str(card.protocol_version or "")
    found = [(str(card.url), version)] if card.url else []
    return found + [(str(i.url), version) for i in card.additional_interfaces or ()]


def sent_message(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Message | None:
    """The message a client's ``send_message`` call sends (None for other calls)."""
    message = args[0] if args else kwargs.get("request")
    return message if isinstance(message, Message) else None


def _with_trace_metadata(
    wrapped: Callable[..., Any], instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    metadata = list(wrapped(*args, **kwargs) or ())
    headers: dict[str, str] = {}
    propagate.inject(headers)
    metadata += [(key.lower(), value) for key, value in headers.items()]
    return metadata or None


def _grpc_transport() -> type | None:
    try:
        from a2a.client.transports.grpc import GrpcTransport
    except ImportError:  # the grpc extra is not installed
        return None
    transport: type = GrpcTransport
    return transport


def instrument_transports() -> None:
    """Send the current trace context in every gRPC call's metadata."""
    transport = _grpc_transport()
    if transport is not None:
        wrapt.wrap_function_wrapper(transport, "_get_grpc_metadata", _with_trace_metadata)


def uninstrument_transports() -> None:
    """Undo `instrument_transports`."""
    transport = _grpc_transport()
    if transport is not None:
        unwrap(transport, "_get_grpc_metadata")
