"""What one OTLP request may hold, and how a trace request over it is cut down or refused.

The receiver keeps what it is sent, so each request is bounded before it is kept:

* the body: `DEFAULT_MAX_REQUEST_BYTES` (4 MiB, gRPC's default message size) as sent and
  once decompressed, on both protocols, unless the receiver is given another limit;
* spans: at most `Limits.spans` per request; the spans past it are dropped and counted as
  rejected in the response's ``partial_success``;
* per span: at most `Limits.attributes` attributes (and as many per event, per link and
  per resource), `Limits.events` events and `Limits.links` links; what is dropped
  is added to the span's own ``dropped_*_count`` and said in ``partial_success.error_message``.

A span whose trace id is not 16 bytes, or whose span id (or parent span id, when set) is not 8,
is not a span at all: the whole request is refused (HTTP 400, gRPC ``INVALID_ARGUMENT``) with
the field named, as the OTLP specification says of a request that can never succeed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

__all__ = [
    "DEFAULT_MAX_REQUEST_BYTES",
    "Admission",
    "InvalidRequestError",
    "Limits",
    "admit",
]

DEFAULT_MAX_REQUEST_BYTES: Final = 4 * 1024 * 1024
"""The largest request accepted by default: gRPC's default message size, on OTLP/HTTP too."""

_TRACE_ID_BYTES: Final = 16
_SPAN_ID_BYTES: Final = 8
_UINT32_MAX: Final = 2**32 - 1


class InvalidRequestError(ValueError):
    """A request that can never be accepted as it is (the message names the field)."""


@dataclass(frozen=True)
class Limits:
    """The bounds of one OTLP request (see the module's documentation)."""

    request_bytes: int = DEFAULT_MAX_REQUEST_BYTES
    spans: int = 8192
    attributes: int = 128
    events: int = 128
    links: int = 128


@dataclass(frozen=True)
class Admission:
    """What was dropped of an accepted request: the response's ``partial_success``."""

    rejected: int = 0
    message: str = ""


def admit(request: ExportTraceServiceRequest, limits: Limits) -> Admission:
    """Cut ``request`` down to ``limits`` in place and check its ids.

    Raises:
        InvalidRequestError: a kept span has an id of the wrong length.
    """
    kept = 0
    rejected = 0
    dropped = _Dropped()
    for r, resource_spans in enumerate(request.resource_spans):
        dropped.attributes += _cut(resource_spans.resource.attributes, limits.attributes)
        for s, scope_spans in enumerate(resource_spans.scope_spans):
            spans = scope_spans.spans
            room = max(0, limits.spans - kept)
            if len(spans) > room:
                rejected += len(spans) - room
                del spans[room:]
            kept += len(spans)
            for index, span in enumerate(spans):
                where = f"resourceSpans[{r}].scopeSpans[{s}].spans[{index}]"
                _check_ids(span, where)
                _cut_span(span, limits, dropped)
    return Admission(rejected, dropped.message(rejected, limits))


@dataclass
class _Dropped:
    attributes: int = 0
    events: int = 0
    links: int = 0

    def message(self, rejected: int, limits: Limits) -> str:
        said = []
        if rejected:
            said.append(f"{rejected} spans over the limit of {limits.spans} per request")
        if self.attributes:
            said.append(f"{self.attributes} attributes over the limit of {limits.attributes} each")
        if self.events:
            said.append(f"{self.events} events over the limit of {limits.events} per span")
        if self.links:
            said.append(f"{self.links} links over the limit of {limits.links} per span")
        return "dropped " + "; ".join(said) if said else ""


def _check_ids(span: Any, where: str) -> None:
    if len(span.trace_id) != _TRACE_ID_BYTES:
        raise InvalidRequestError(
            f"{where}.traceId: {len(span.trace_id)} bytes, a trace id is {_TRACE_ID_BYTES}"
        )
    if len(span.span_id) != _SPAN_ID_BYTES:
        raise InvalidRequestError(
            f"{where}.spanId: {len(span.span_id)} bytes, a span id is {_SPAN_ID_BYTES}"
        )
    if span.parent_span_id and len(span.parent_span_id) != _SPAN_ID_BYTES:
        raise InvalidRequestError(
            f"{where}.parentSpanId: {len(span.parent_span_id)} bytes, a span id is "
            f"{_SPAN_ID_BYTES} (or none for a root span)"
        )
    for index, link in enumerate(span.links):
        if len(link.trace_id) != _TRACE_ID_BYTES or len(link.span_id) != _SPAN_ID_BYTES:
            raise InvalidRequestError(
                f"{where}.links[{index}]: a trace id of {len(link.trace_id)} bytes and a span id "
                f"of {len(link.span_id)}, not {_TRACE_ID_BYTES} and {_SPAN_ID_BYTES}"
            )


def _cut_span(span: Any, limits: Limits, dropped: _Dropped) -> None:
    dropped.attributes += _cut(span.attributes, limits.attributes, span, "attributes")
    dropped.events += _cut(span.events, limits.events, span, "events")
    for event in span.events:
        dropped.attributes += _cut(event.attributes, limits.attributes, event, "attributes")
    dropped.links += _cut(span.links, limits.links, span, "links")
    for link in span.links:
        dropped.attributes += _cut(link.attributes, limits.attributes, link, "attributes")


def _cut(repeated: Any, most: int, owner: Any = None, what: str = "") -> int:
    """Delete the items of a repeated field past ``most`` and add them to the owner's
    ``dropped_<what>_count`` (a uint32: it saturates); how many went."""
    over = len(repeated) - most
    if over <= 0:
        return 0
    del repeated[most:]
    if owner is not None:
        field = f"dropped_{what}_count"
        setattr(owner, field, min(_UINT32_MAX, getattr(owner, field) + over))
    return over
