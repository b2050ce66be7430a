"""OTLP export requests as flat Python records: spans with their service, metric points."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

__all__ = ["MetricPoint", "ReceivedEvent", "ReceivedSpan", "metric_points_of", "spans_of"]

MetricPoint = tuple[str, dict[str, Any], float | int | None]
"""``(metric name, point attributes, value)``; see `OtlpReceiver.metric_points`."""


@dataclass(frozen=True)
class ReceivedEvent:
    """A span event as received."""

    name: str
    time_unix_nano: int
    attributes: dict[str, Any]


@dataclass(frozen=True)
class ReceivedSpan:
    """A span as received, flattened with its resource's ``service.name`` and its scope's name.

    Ids are lowercase hex; ``kind`` and ``status_code`` are the OTLP enum names without their
    prefix (``"SERVER"``, ``"ERROR"``). Attribute values are Python values; arrays are tuples.
    """

    service_name: str
    name: str
    trace_id: str
    span_id: str
    parent_span_id: str | None
    kind: str
    start_time_unix_nano: int
    end_time_unix_nano: int
    status_code: str
    status_message: str
    attributes: dict[str, Any]
    events: tuple[ReceivedEvent, ...]
    scope_name: str


def spans_of(request: ExportTraceServiceRequest) -> Iterator[ReceivedSpan]:
    """Every span of a trace export request, in the request's order."""
    for resource_spans in request.resource_spans:
        service = attributes_of(resource_spans.resource.attributes).get("service.name", "")
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                yield ReceivedSpan(
                    service_name=str(service),
                    name=span.name,
                    trace_id=span.trace_id.hex(),
                    span_id=span.span_id.hex(),
                    parent_span_id=span.parent_span_id.hex() or None,
                    kind=_name(Span.SpanKind, span.kind, "SPAN_KIND_"),
                    start_time_unix_nano=span.start_time_unix_nano,
                    end_time_unix_nano=span.end_time_unix_nano,
                    status_code=_name(Status.StatusCode, span.status.code, "STATUS_CODE_"),
                    status_message=span.status.message,
                    attributes=attributes_of(span.attributes),
                    events=tuple(
                        ReceivedEvent(
                            event.name, event.time_unix_nano, attributes_of(event.attributes)
                        )
                        for event in span.events
                    ),
                    scope_name=scope_spans.scope.name,
                )


def _name(enum: Any, value: int, prefix: str) -> str:
    """An OTLP enum value's name without ``prefix``; a value the enum does not define (protobuf
    keeps what a peer sent) as its number."""
    try:
        return str(enum.Name(value)).removeprefix(prefix)
    except ValueError:
        return str(value)


def metric_points_of(request: ExportMetricsServiceRequest) -> Iterator[MetricPoint]:
    """Every data point of a metrics export request (see `MetricPoint`)."""
    for resource_metrics in request.resource_metrics:
        for scope_metrics in resource_metrics.scope_metrics:
            for metric in scope_metrics.metrics:
                data = metric.WhichOneof("data")
                if data in ("gauge", "sum"):
                    for number in getattr(metric, data).data_points:
                        which = number.WhichOneof("value")
                        value = None if which is None else getattr(number, which)
                        yield metric.name, attributes_of(number.attributes), value
                elif data is not None:  # histogram, exponential_histogram, summary
                    for point in getattr(metric, data).data_points:
                        yield metric.name, attributes_of(point.attributes), point.count


def attributes_of(pairs: Iterable[KeyValue]) -> dict[str, Any]:
    """OTLP key-values as a dict of Python values (arrays as tuples, key-value lists as dicts)."""
    return {pair.key: _value(pair.value) for pair in pairs}


def _value(value: AnyValue) -> Any:
    which = value.WhichOneof("value")
    if which is None:
        return None
    if which == "array_value":
        return tuple(_value(item) for item in value.array_value.values)
    if which == "kvlist_value":
        return attributes_of(value.kvlist_value.values)
    return getattr(value, which)
