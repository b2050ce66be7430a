"""Caller-side hooks: a span per A2A call, the callee's progress under it, trace context sent along.

``BaseClient.send_message`` and ``BaseClient.subscribe`` are async generators; the wrapper
returns a `TracedStream` that passes every event through unchanged and ends the telemetry
however the iteration stops: exhaustion, an exception, ``aclose()``, an early ``break`` or
garbage collection. Transport classes are not touched (a2a-sdk's own tracing replaced their
methods). Every wrapped call also carries the W3C trace context in its service parameters, which
the transports send as HTTP headers or gRPC metadata. The call's span is current while the
wrapped stream runs, so transport spans (e.g. ``opentelemetry-instrumentation-httpx``) nest
under it.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable
from typing import Any, Final
from urllib.parse import urlsplit

import wrapt
from opentelemetry import context as otel_context
from opentelemetry import propagate, trace
from opentelemetry.context import Context, attach, detach
from opentelemetry.instrumentation.utils import unwrap
from opentelemetry.trace import SpanKind

from a2a_progress.otel import conventions as conv
from a2a_progress.otel.bridge import Bridge, ObservedTurn
from a2a_progress.otel.card import card_attributes
from a2a_progress.otel.config import NAME_MAX_LENGTH, SIDE_CALLER
from a2a_progress.otel.invoke_agent import InvokeAgent
from a2a_progress.otel.safe_text import bounded, redacted
from a2a_progress.sdk.adapter import message_text
from a2a_progress.sdk.hooks import (
    CLIENT_CLASS,
    CLIENT_STREAM_CALLS,
    CLIENT_TASK_CALLS,
    card_interfaces,
    instrument_transports,
    sent_message,
    uninstrument_transports,
    with_headers,
)

# The client's types differ by a2a-sdk line: the hooks read them duck-typed.
BaseClient = Any
StreamResponse = Any
Message = Any
# server.port when the agent's URL names none (the draft: recommended when server.address is).
_DEFAULT_PORTS: Final = {"http": 80, "https": 443}


def with_trace_context(kwargs: dict[str, Any], context: Context | None) -> dict[str, Any]:
    """``kwargs`` whose call context carries the trace headers; the caller's own values win.

    The caller's call context is copied, never changed.
    """
    headers: dict[str, str] = {}
    propagate.inject(headers, context=context)
    if not headers:
        return kwargs
    return with_headers(kwargs, headers)


class TracedStream:
    """An async generator's events, passed through while a turn observes them."""

    __slots__ = ("__weakref__", "_context", "_next", "_stream", "_turn")

    def __init__(
        self,
        stream: AsyncGenerator[StreamResponse, None],
        turn: ObservedTurn,
        context: Context,
    ) -> None:
        self._stream = stream
        # Bound once: __anext__ runs for every event of the turn.
        self._next = stream.__anext__
        self._turn: ObservedTurn | None = turn
        self._context = context

    def __aiter__(self) -> TracedStream:
        return self

    async def __anext__(self) -> StreamResponse:
        token = attach(self._context)
        try:
            event = await self._next()
        except StopAsyncIteration:
            self._finish(None)
            raise
        except BaseException as exc:
            self._finish(exc)
            raise
        finally:
            detach(token)
        turn = self._turn
        if turn is not None:
            turn.feed(event)
        return event

    async def asend(self, value: None) -> StreamResponse:
        """Like the generator's ``asend``: a value other than None is not supported by it."""
        return await self.__anext__() if value is None else await self._stream.asend(value)

    async def athrow(self, *args: Any) -> StreamResponse:
        """Throw into the wrapped generator; the telemetry ends if that ends the stream."""
        try:
            return await self._stream.athrow(*args)
        except BaseException as exc:
            self._finish(None if isinstance(exc, StopAsyncIteration) else exc)
            raise

    async def aclose(self) -> None:
        """Close the wrapped generator and end the telemetry (the caller stopped reading)."""
        try:
            await self._stream.aclose()
        finally:
            self._finish(None)

    def _finish(self, error: BaseException | None) -> None:
        turn, self._turn = self._turn, None
        if turn is not None:
            turn.end(error=error)

    def __del__(self) -> None:
        # An abandoned stream (early break, then garbage) still ends its spans exactly once.
        self._finish(None)


# What _server_attributes() made of a card and URL, by the card's id: a client calls with the
# same card every turn (listing its interfaces alone was ~18 k instructions per turn). Each entry
# holds its card, so an id is not reused while cached and a new card object is read afresh.
_SERVER_CACHE: Final[dict[int, tuple[Any, object, dict[str, Any]]]] = {}
_SERVER_CACHE_SIZE: Final = 64


def _server_attributes(client: BaseClient) -> dict[str, Any]:
    """The server's attributes for a call of ``client`` (do not change the dict returned)."""
    # a2a-sdk's BaseClient exposes neither its card nor its transport (get_extended_agent_card
    # is a request to the agent), so their private names are read, with getattr: a release that
    # renames them drops or misplaces attributes, never the call. tests/otel/test_propagation.py
    # fails when that happens: server.* per transport and line, and of the interface the client
    # chose, not the card's first (``_transport``; ``_base``, the transport a tenant's
    # TenantTransportDecorator wraps); tests/otel/test_lifecycle.py: the card's gen_ai.agent.*.
    card = getattr(client, "_card", None)
    transport = getattr(client, "_transport", None)
    url = getattr(transport, "url", None) or getattr(getattr(transport, "_base", None), "url", None)
    cached = _SERVER_CACHE.get(id(card))
    if cached is not None and cached[0] is card and cached[1] == url:
        return cached[2]
    attributes = _card_server_attributes(card, url)
    if len(_SERVER_CACHE) >= _SERVER_CACHE_SIZE:
        _SERVER_CACHE.clear()
    _SERVER_CACHE[id(card)] = (card, url, attributes)
    return attributes


def _card_server_attributes(card: Any, url: Any) -> dict[str, Any]:
    attributes = card_attributes(card)
    interfaces = card_interfaces(card) if card is not None else []
    if not url and interfaces:
        url = interfaces[0][0]
    chosen = next((i for i in interfaces if i[0] == url), interfaces[0] if interfaces else None)
    if chosen is not None and chosen[1]:
        attributes[conv.A2A_PROTOCOL_VERSION] = bounded(chosen[1], 32)[0]
    if isinstance(url, str) and url:
        host, port = _address(url)
        if host:
            attributes[conv.SERVER_ADDRESS] = host
            if port is not None:
                attributes[conv.SERVER_PORT] = port
    return attributes


def _address(url: str) -> tuple[str | None, int | None]:
    """The host and port of an agent's URL (read once per card and URL: see _SERVER_CACHE)."""
    parts = urlsplit(url if "://" in url else f"//{url}")
    try:
        port = parts.port or _DEFAULT_PORTS.get(parts.scheme)
    except ValueError:
        port = None
    return parts.hostname, port


def _is_streaming(client: BaseClient) -> bool:
    """Whether ``client.send_message`` streams, as BaseClient decides it (its private config and
    card, as `_server_attributes` reads them; tests/otel/test_lifecycle.py's unary call fails if
    a renamed ``_config`` made every call read as streaming)."""
    config, card = getattr(client, "_config", None), getattr(client, "_card", None)
    return bool(getattr(config, "streaming", True)) and bool(
        card is None or card.capabilities.streaming
    )


def _traced_call(bridge: Bridge, method_name: Callable[[BaseClient], str]) -> Callable[..., Any]:
    def wrapper(
        wrapped: Callable[..., Any],
        instance: BaseClient,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> Any:
        if not bridge.observes(SIDE_CALLER):
            return wrapped(*args, **with_trace_context(kwargs, None))
        try:
            method = method_name(instance)
            attributes = {conv.A2A_METHOD_NAME: method, **_server_attributes(instance)}
            message = sent_message(args, kwargs)
            if message is not None and message.message_id:
                attributes[conv.A2A_MESSAGE_ID] = bounded(message.message_id, NAME_MAX_LENGTH)[0]
            invoke = _invoke_agent(bridge, attributes, message)
            turn = bridge.start_turn(
                method,
                kind=SpanKind.CLIENT,
                observer=conv.OBSERVER_CALLER,
                parent=None if invoke is None else invoke.context(),
                attributes=attributes,
            )
            turn.invoke_agent = invoke
        except Exception:  # noqa: BLE001 - never let telemetry fail the call
            bridge.warn_once("caller start")
            return wrapped(*args, **kwargs)
        try:
            context = trace.set_span_in_context(turn.span, otel_context.get_current())
            call_kwargs = with_trace_context(kwargs, context)
            return TracedStream(wrapped(*args, **call_kwargs), turn, context)
        except BaseException as exc:
            turn.end(error=exc)
            raise

    return wrapper


def _invoke_agent(
    bridge: Bridge, attributes: dict[str, Any], message: Message | None
) -> InvokeAgent | None:
    """The opt-in ``invoke_agent`` span of a call (see `invoke_agent`), or None."""
    config = bridge.config
    if not config.invoke_agent_span:
        return None
    text = None
    if config.capture_content and message is not None:
        text = redacted(message_text(message), config.content_max_length, config.redactor)[0]
    return InvokeAgent(bridge.tracer_for(SIDE_CALLER), bridge.metrics, attributes, user_text=text)


def _propagating(
    wrapped: Callable[..., Any], instance: BaseClient, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    return wrapped(*args, **with_trace_context(kwargs, None))


def instrument(bridge: Bridge) -> None:
    """Patch ``BaseClient``'s streaming calls (spans) and task calls (trace context only)."""
    send_name: Callable[[BaseClient], str] = lambda client: (  # noqa: E731
        conv.METHOD_SEND_STREAMING if _is_streaming(client) else conv.METHOD_SEND
    )
    names = {"send": send_name, "subscribe": lambda client: conv.METHOD_SUBSCRIBE}
    for name, what in CLIENT_STREAM_CALLS.items():
        wrapt.wrap_function_wrapper(CLIENT_CLASS, name, _traced_call(bridge, names[what]))
    for name in CLIENT_TASK_CALLS:
        wrapt.wrap_function_wrapper(CLIENT_CLASS, name, _propagating)
    instrument_transports()


def uninstrument() -> None:
    """Remove the patches."""
    for name in (*CLIENT_STREAM_CALLS, *CLIENT_TASK_CALLS):
        unwrap(CLIENT_CLASS, name)
    uninstrument_transports()
