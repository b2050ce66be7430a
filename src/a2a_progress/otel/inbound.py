"""The request boundary: each inbound A2A request is served in the caller's trace context.

The caller's W3C trace context (HTTP headers, gRPC invocation metadata) is extracted where
a2a-sdk first sees the request and attached while the SDK serves it: at the HTTP dispatchers
(JSON-RPC ``handle_requests``, the REST endpoints), which a2a-sdk's own tracing starts its spans
in, and at the request handler's entry points (send, stream, subscribe, get, list, cancel), which
the gRPC servicer calls directly. ``execute()`` starts in a copy of that context, so the callee's
SERVER span, a2a-sdk's own spans (``OTEL_INSTRUMENTATION_A2A_SDK_ENABLED``) and the agent's code
are all in the caller's trace.

When the current span already belongs to the caller's trace (a server instrumentation, ASGI or
gRPC, continued it first, or an outer boundary did), it is kept. Headers are read for trace
context only and never recorded.
"""

from __future__ import annotations

import contextvars
import logging
import threading
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any, Final

import wrapt
from opentelemetry import context as otel_context
from opentelemetry import propagate, trace
from opentelemetry.context import Context
from opentelemetry.instrumentation.utils import unwrap

from a2a_progress.inert import inert
from a2a_progress.otel import conventions as conv
from a2a_progress.otel.bridge import Bridge
from a2a_progress.sdk.hooks import HANDLER_CLASSES, HANDLER_METHODS, TRANSPORT_ENTRY_POINTS

logger = logging.getLogger(__name__)

# What a caller reaches with its trace context, by class: method name → (the A2A method it
# starts, named on the execution span, or None; whether it returns an async generator).
_STARTS: Final[Mapping[str, tuple[str | None, bool]]] = {
    "send": (conv.METHOD_SEND, False),
    "stream": (conv.METHOD_SEND_STREAMING, True),
    "subscribe": (None, True),
    "get": (None, False),
    "list": (None, False),
    "cancel": (None, False),
}
_HANDLER_METHODS: Final = {name: _STARTS[what] for name, what in HANDLER_METHODS.items()}
_ENTRY_POINTS: Final[Mapping[type, Mapping[str, tuple[str | None, bool]]]] = {
    **dict.fromkeys(HANDLER_CLASSES, _HANDLER_METHODS),
    **{
        cls: {name: (None, False) for name in names}
        for cls, names in TRANSPORT_ENTRY_POINTS.items()
    },
}

# The A2A method being served, set while the handler's send method runs. a2a-sdk starts
# execute() in a copy of the sending request's context, so the executor proxy can read it.
_method: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "a2a_progress_inbound_method", default=None
)

# The headers of the request being served and what the propagators extracted from them, so the
# request's later boundaries reuse it. Never reset: it must outlive the dispatcher's boundary for
# the stream it returns, and a server serves each request in a task (a context) of its own.
_extracted: contextvars.ContextVar[tuple[dict[str, str], Context] | None] = contextvars.ContextVar(
    "a2a_progress_inbound_extracted", default=None
)
_BAGGAGE: Final = "baggage"
_MAX_BAGGAGE_BYTES: Final = 8192  # W3C Baggage, and OpenTelemetry's propagator
_said_baggage = threading.Event()

# Set in the context a boundary entered, to tell at its exit whether it is still in that context.
_entered: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "a2a_progress_boundary", default=False
)


def served_method() -> str | None:
    """The A2A method of the request being served in this context, if a send method started it."""
    return _method.get()


def _carrier(request: object) -> dict[str, str]:
    """Propagation headers of a request: a Starlette request's headers, or those a
    ``ServerCallContext`` keeps (HTTP headers, or gRPC invocation metadata).

    Values are made inert (a propagator may log what it cannot parse), and a ``baggage`` header
    over the W3C limit is left out: OpenTelemetry's propagator ignores it anyway, after logging
    all of it."""
    headers = getattr(request, "headers", None)
    if headers is None:
        state = getattr(request, "state", None)
        if not isinstance(state, Mapping):
            return {}
        headers = state.get("headers")
        if headers is None and state.get("grpc_context") is not None:
            headers = {
                key: value
                for key, value in state["grpc_context"].invocation_metadata() or ()
                if not isinstance(value, bytes)  # binary "-bin" metadata carries no context
            }
    if not isinstance(headers, Mapping):
        return {}
    carrier = {str(key).lower(): inert(str(value), one_line=True) for key, value in headers.items()}
    baggage = carrier.get(_BAGGAGE, "")
    if len(baggage.encode(errors="replace")) > _MAX_BAGGAGE_BYTES:
        del carrier[_BAGGAGE]
        if not _said_baggage.is_set():
            _said_baggage.set()
            logger.warning(
                "ignored a baggage header of %d characters, over the %d bytes W3C Baggage allows "
                "(logged once)",
                len(baggage),
                _MAX_BAGGAGE_BYTES,
            )
    return carrier


def _remote_context(carrier: dict[str, str]) -> Context:
    """What the propagators extract from ``carrier`` (into an empty context): once per request.

    The request's first boundary extracts; the others (the handler after the dispatcher, the
    stream after the response started, the executor) find the same headers and reuse it.
    """
    cached = _extracted.get()
    if cached is not None and cached[0] == carrier:
        return cached[1]
    remote = propagate.extract(carrier, context=Context())
    _extracted.set((carrier, remote))
    return remote


def inbound_context(request: object) -> Context | None:
    """The caller's trace context to serve ``request`` in; None to keep the current one.

    ``request`` is a Starlette request or a ``ServerCallContext``. None when the caller sent no
    valid trace context, or when the current span already belongs to the caller's trace.
    Otherwise the current context with what the caller sent (its span, its baggage) over it.
    """
    remote_context = _remote_context(_carrier(request))
    remote = trace.get_current_span(remote_context).get_span_context()
    if not remote.is_valid:
        return None
    current = trace.get_current_span().get_span_context()
    if current.is_valid and current.trace_id == remote.trace_id:
        return None
    return Context({**otel_context.get_current(), **remote_context})


class _Boundary:
    """One request's trace context and A2A method, current while the SDK serves it."""

    __slots__ = ("_tokens",)

    def __init__(self, bridge: Bridge, method: str | None, request: object) -> None:
        method_token = _method.set(method) if method is not None else None
        parent = None
        if bridge.active:
            try:
                parent = inbound_context(request)
            except Exception:  # noqa: BLE001 - a bad header must not fail the request
                bridge.warn_once("request boundary")
        trace_token = None if parent is None else otel_context.attach(parent)
        self._tokens = (method_token, trace_token, _entered.set(True))

    def exit(self) -> None:
        method_token, trace_token, entered = self._tokens
        try:
            _entered.reset(entered)
        except ValueError:
            # Finalized in another context (an abandoned stream closed by the event loop's
            # generator finalizer): there is nothing of ours to restore there.
            return
        if trace_token is not None:
            otel_context.detach(trace_token)
        if method_token is not None:
            _method.reset(method_token)


def _request_of(args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> object:
    # Handlers take (params, context: ServerCallContext); dispatchers take (request: Request).
    if "context" in kwargs:
        return kwargs["context"]
    if "request" in kwargs:
        return kwargs["request"]
    return args[1] if len(args) > 1 else (args[0] if args else None)


def _entry_point(bridge: Bridge, method: str | None, stream: bool) -> Callable[..., Any]:
    async def serve(wrapped: Callable[..., Any], args: tuple[Any, ...], kwargs: Any) -> Any:
        boundary = _Boundary(bridge, method, _request_of(args, kwargs))
        try:
            return await wrapped(*args, **kwargs)
        finally:
            boundary.exit()

    async def serve_stream(
        wrapped: Callable[..., Any], args: tuple[Any, ...], kwargs: Any
    ) -> AsyncIterator[Any]:
        # The wrapped generator is created inside the boundary too: a2a-sdk's tracing starts
        # the span of a generator method when it is called.
        boundary = _Boundary(bridge, method, _request_of(args, kwargs))
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
    """Wrap every entry point."""
    for cls, methods in _ENTRY_POINTS.items():
        for name, (method, stream) in methods.items():
            wrapt.wrap_function_wrapper(cls, name, _entry_point(bridge, method, stream))


def uninstrument() -> None:
    """Remove the wrappers."""
    for cls, methods in _ENTRY_POINTS.items():
        for name in methods:
            unwrap(cls, name)
