"""A small OTLP receiver on loopback: what real exporters send, for tests, the demo and benchmarks.

It accepts OTLP traces, metrics and logs over OTLP/HTTP (``POST /v1/traces``, ``/v1/metrics``,
``/v1/logs``; protobuf or JSON bodies, optionally gzip- or deflate-compressed) and over OTLP/gRPC
(``TraceService``, ``MetricsService`` and ``LogsService`` ``Export``). Both servers run in
background threads, so it serves synchronous tests and asyncio code alike without touching an
event loop. Spans and metric points are kept in memory; log records are only counted.

Usage::

    with OtlpReceiver() as receiver:
        exporter = OTLPSpanExporter(endpoint=f"{receiver.http_endpoint}/v1/traces")
        ...
        spans = receiver.wait_for_spans(lambda spans: any(s.kind == "SERVER" for s in spans))
        receiver.write_otlp_json("trace.json")  # every span, as one OTLP/JSON request

The HTTP server binds IPv4 (or a host name); it speaks HTTP/1.0, one request per connection.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import threading
import zlib
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any, Final, cast

import grpc
from google.protobuf import json_format  # type: ignore[import-untyped]
from google.protobuf.message import DecodeError, Message  # type: ignore[import-untyped]
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2_grpc
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2_grpc
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2_grpc
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

__all__ = ["MetricPoint", "OtlpReceiver", "ReceivedEvent", "ReceivedSpan"]

MetricPoint = tuple[str, dict[str, Any], float | int | None]
"""``(metric name, point attributes, value)``; see :meth:`OtlpReceiver.metric_points`."""

_ExportRequest = ExportTraceServiceRequest | ExportMetricsServiceRequest | ExportLogsServiceRequest

_HTTP_PATHS: Final[dict[str, type[_ExportRequest]]] = {
    "/v1/traces": ExportTraceServiceRequest,
    "/v1/metrics": ExportMetricsServiceRequest,
    "/v1/logs": ExportLogsServiceRequest,
}
_RESPONSES: Final[dict[type[Message], type[Message]]] = {
    ExportTraceServiceRequest: ExportTraceServiceResponse,
    ExportMetricsServiceRequest: ExportMetricsServiceResponse,
    ExportLogsServiceRequest: ExportLogsServiceResponse,
}
_PROTOBUF: Final = "application/x-protobuf"
_JSON: Final = "application/json"
_DECOMPRESS: Final[dict[str, Callable[[bytes], bytes]]] = {
    "": lambda body: body,
    "identity": lambda body: body,
    "gzip": gzip.decompress,
    "deflate": zlib.decompress,
}
# OTLP/JSON writes these ids as hex, where protobuf's JSON mapping of bytes is base64.
_ID_FIELDS: Final = frozenset({"traceId", "spanId", "parentSpanId"})
# What a malformed, truncated or mis-encoded body raises while it is decoded and parsed.
_BAD_BODY: Final = (DecodeError, json_format.ParseError, ValueError, OSError, EOFError, zlib.error)
_GRPC_WORKERS: Final = 4
# How long an HTTP connection may sit idle before its thread gives up (keeps stop() bounded).
_HTTP_IDLE_TIMEOUT: Final = 5.0


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


class OtlpReceiver:
    """An OTLP/HTTP and OTLP/gRPC receiver in background threads.

    Args:
        host: the address both servers bind.
        http_port: the OTLP/HTTP port; 0 picks a free one.
        grpc_port: the OTLP/gRPC port; 0 picks a free one, None serves no gRPC.
        response_delay: seconds every export waits, after it is recorded, before it is answered:
            a slow collector. :meth:`stop` releases waiting exports at once.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        http_port: int = 0,
        grpc_port: int | None = 0,
        *,
        response_delay: float = 0.0,
    ) -> None:
        self._host = host
        self._http_port = http_port
        self._grpc_port = grpc_port
        self._response_delay = response_delay
        self._changed = threading.Condition()
        self._stopping = threading.Event()
        self._trace_requests: list[ExportTraceServiceRequest] = []
        self._spans: list[ReceivedSpan] = []
        self._metric_points: list[MetricPoint] = []
        self._log_records = 0
        self._requests = 0
        self._responses = 0
        self._rejections: list[str] = []
        self._http: _HttpServer | None = None
        self._http_thread: threading.Thread | None = None
        self._grpc: Any = None
        self._grpc_pool: ThreadPoolExecutor | None = None
        self._http_endpoint: str | None = None
        self._grpc_endpoint: str | None = None

    # -- lifecycle -----------------------------------------------------------------------------

    def start(self) -> OtlpReceiver:
        """Bind both ports and serve; returns ``self``."""
        if self._http is not None:
            raise RuntimeError("OtlpReceiver already started")
        self._stopping.clear()
        try:
            self._http = _HttpServer((self._host, self._http_port), _OtlpHttpHandler, self)
            self._http_endpoint = f"http://{self._host}:{self._http.server_address[1]}"
            self._http_thread = threading.Thread(
                target=self._http.serve_forever,
                kwargs={"poll_interval": 0.05},
                name="otlp-receiver-http",
                daemon=True,
            )
            self._http_thread.start()
            if self._grpc_port is not None:
                self._start_grpc(self._grpc_port)
        except BaseException:
            self.stop()
            raise
        return self

    def _start_grpc(self, port: int) -> None:
        self._grpc_pool = ThreadPoolExecutor(_GRPC_WORKERS, thread_name_prefix="otlp-receiver-grpc")
        # No SO_REUSEPORT: a second server must not silently share the port.
        self._grpc = grpc.server(self._grpc_pool, options=[("grpc.so_reuseport", 0)])
        servicer = _Servicer(self)
        trace_service_pb2_grpc.add_TraceServiceServicer_to_server(servicer, self._grpc)  # type: ignore[no-untyped-call]
        metrics_service_pb2_grpc.add_MetricsServiceServicer_to_server(servicer, self._grpc)  # type: ignore[no-untyped-call]
        logs_service_pb2_grpc.add_LogsServiceServicer_to_server(servicer, self._grpc)  # type: ignore[no-untyped-call]
        bound = self._grpc.add_insecure_port(f"{self._host}:{port}")
        if not bound:
            raise OSError(f"OTLP/gRPC receiver could not bind {self._host}:{port}")
        self._grpc.start()
        self._grpc_endpoint = f"{self._host}:{bound}"

    def stop(self) -> None:
        """Stop both servers and release their ports and threads. Safe to call twice."""
        self._stopping.set()  # held (delayed) exports answer now
        if self._grpc is not None:
            self._grpc.stop(grace=None).wait()
            self._grpc = None
        if self._grpc_pool is not None:
            self._grpc_pool.shutdown(wait=True)
            self._grpc_pool = None
        if self._http is not None:
            if self._http_thread is not None:
                self._http.shutdown()
                self._http_thread.join()
                self._http_thread = None
            self._http.server_close()  # joins the request threads
            self._http = None

    def __enter__(self) -> OtlpReceiver:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- where to send -------------------------------------------------------------------------

    @property
    def http_endpoint(self) -> str:
        """The OTLP/HTTP base URL, e.g. ``http://127.0.0.1:4318``; exporters add ``/v1/traces``."""
        if self._http_endpoint is None:
            raise RuntimeError("OtlpReceiver not started")
        return self._http_endpoint

    @property
    def grpc_endpoint(self) -> str | None:
        """The OTLP/gRPC target ``host:port``; None when gRPC is not served."""
        if self._http_endpoint is None:
            raise RuntimeError("OtlpReceiver not started")
        return self._grpc_endpoint

    # -- what was received ---------------------------------------------------------------------

    @property
    def request_count(self) -> int:
        """Export requests received, all signals and both protocols (counted before any delay)."""
        with self._changed:
            return self._requests

    @property
    def response_count(self) -> int:
        """Export requests answered (after ``response_delay``)."""
        with self._changed:
            return self._responses

    @property
    def log_record_count(self) -> int:
        """Log records received."""
        with self._changed:
            return self._log_records

    def spans(self) -> list[ReceivedSpan]:
        """Every span received so far, in arrival order."""
        with self._changed:
            return list(self._spans)

    def wait_for_spans(
        self, predicate: Callable[[list[ReceivedSpan]], bool], timeout: float = 10.0
    ) -> list[ReceivedSpan]:
        """Block until ``predicate(spans)`` holds for the spans received so far; return them.

        Raises:
            TimeoutError: it did not hold within ``timeout`` seconds; the message lists what
                did arrive.
        """
        with self._changed:
            if self._changed.wait_for(lambda: predicate(list(self._spans)), timeout):
                return list(self._spans)
            spans, requests, rejections = list(self._spans), self._requests, self._rejections[:]
        names = ", ".join(f"{s.service_name}/{s.name}" for s in spans[:40])
        more = f" and {len(spans) - 40} more" if len(spans) > 40 else ""
        rejected = f"; rejected: {rejections}" if rejections else ""
        raise TimeoutError(
            f"spans did not match within {timeout}s: {len(spans)} spans in {requests} export "
            f"requests [{names}{more}]{rejected}"
        )

    def metric_points(self) -> list[MetricPoint]:
        """Every metric data point received so far, in arrival order.

        The value is the point's number for gauges and sums, and the number of recorded values
        (``count``) for histograms, exponential histograms and summaries; None for a point that
        carries no value. Cumulative metrics repeat in every export, so the last point of a
        ``(name, attributes)`` pair is its total.
        """
        with self._changed:
            return list(self._metric_points)

    def trace_requests(self) -> list[ExportTraceServiceRequest]:
        """The trace export requests as received (shared objects: do not modify them)."""
        with self._changed:
            return list(self._trace_requests)

    def write_otlp_json(self, path: str | os.PathLike[str]) -> int:
        """Write every span received as one OTLP/JSON ``ExportTraceServiceRequest``.

        The file holds one JSON object on one line, in the OTLP/JSON encoding (camelCase field
        names, enums as integers, trace and span ids as lowercase hex), as the collector's
        ``otlpjsonfile`` receiver reads it. Returns the number of spans written.
        """
        merged = ExportTraceServiceRequest()
        with self._changed:
            for request in self._trace_requests:
                merged.resource_spans.extend(request.resource_spans)
            count = len(self._spans)
        document = json_format.MessageToDict(merged, use_integers_for_enums=True)
        _convert_ids(document, _base64_to_hex)
        Path(path).write_text(json.dumps(document, separators=(",", ":")) + "\n", "utf-8")
        return count

    # -- receiving -----------------------------------------------------------------------------

    def _export(self, request: _ExportRequest) -> Message:
        """Record one export request, wait ``response_delay``, and return its response."""
        with self._changed:
            self._requests += 1
            if isinstance(request, ExportTraceServiceRequest):
                self._trace_requests.append(request)
                self._spans.extend(_spans_of(request))
            elif isinstance(request, ExportMetricsServiceRequest):
                self._metric_points.extend(_points_of(request))
            else:
                self._log_records += sum(
                    len(scope.log_records)
                    for resource in request.resource_logs
                    for scope in resource.scope_logs
                )
            self._changed.notify_all()
        if self._response_delay > 0:
            self._stopping.wait(self._response_delay)
        with self._changed:
            self._responses += 1
        return _RESPONSES[type(request)]()

    def _reject(self, reason: str) -> None:
        with self._changed:
            self._rejections.append(reason)


class _Servicer(
    trace_service_pb2_grpc.TraceServiceServicer,
    metrics_service_pb2_grpc.MetricsServiceServicer,
    logs_service_pb2_grpc.LogsServiceServicer,
):
    """All three OTLP gRPC services: each ``Export`` request's type says its signal."""

    def __init__(self, receiver: OtlpReceiver) -> None:
        self._receiver = receiver

    def Export(self, request: _ExportRequest, context: Any) -> Message:  # noqa: N802 - gRPC name
        return self._receiver._export(request)


class _HttpServer(ThreadingHTTPServer):
    def __init__(
        self,
        address: tuple[str, int],
        handler: type[BaseHTTPRequestHandler],
        receiver: OtlpReceiver,
    ) -> None:
        super().__init__(address, handler)
        self.receiver = receiver


class _OtlpHttpHandler(BaseHTTPRequestHandler):
    timeout = _HTTP_IDLE_TIMEOUT

    def do_POST(self) -> None:
        receiver = cast("_HttpServer", self.server).receiver
        request_type = _HTTP_PATHS.get(self.path.split("?", 1)[0])
        if request_type is None:
            self._reply(HTTPStatus.NOT_FOUND, "text/plain", b"unknown OTLP path")
            return
        if "Content-Length" not in self.headers:
            # Every OTLP exporter sends a length; a chunked body would be read as empty.
            self._reply(HTTPStatus.LENGTH_REQUIRED, "text/plain", b"Content-Length required")
            return
        content_type = (self.headers.get("Content-Type") or "").split(";", 1)[0].strip().lower()
        encoding = (self.headers.get("Content-Encoding") or "").strip().lower()
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if content_type not in (_PROTOBUF, _JSON) or encoding not in _DECOMPRESS:
            receiver._reject(f"{self.path}: {content_type!r} body, {encoding!r} encoding")
            self._reply(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "text/plain", b"unsupported body")
            return
        try:
            request = _parse(request_type, _DECOMPRESS[encoding](body), content_type == _JSON)
        except (
            DecodeError,
            json_format.ParseError,
            ValueError,
            OSError,
            EOFError,
            zlib.error,
        ) as error:
            receiver._reject(f"{self.path}: {error}")
            self._reply(HTTPStatus.BAD_REQUEST, "text/plain", str(error).encode())
            return
        response = receiver._export(request)
        if content_type == _JSON:
            self._reply(HTTPStatus.OK, _JSON, json_format.MessageToJson(response).encode())
        else:
            self._reply(HTTPStatus.OK, _PROTOBUF, response.SerializeToString())

    def _reply(self, status: HTTPStatus, content_type: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: a test receiver has no access log."""


def _parse(request_type: type[_ExportRequest], body: bytes, is_json: bool) -> _ExportRequest:
    request = request_type()
    if not is_json:
        request.ParseFromString(body)
        return request
    document = json.loads(body)
    _convert_ids(document, _hex_to_base64)
    # OTLP/JSON receivers must ignore fields they do not know.
    json_format.ParseDict(document, request, ignore_unknown_fields=True)
    return request


def _convert_ids(node: Any, convert: Callable[[str], str]) -> None:
    """Rewrite every trace / span id string in a JSON document in place."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in _ID_FIELDS and isinstance(value, str):
                node[key] = convert(value)
            else:
                _convert_ids(value, convert)
    elif isinstance(node, list):
        for item in node:
            _convert_ids(item, convert)


def _hex_to_base64(value: str) -> str:
    return base64.b64encode(bytes.fromhex(value)).decode("ascii")


def _base64_to_hex(value: str) -> str:
    return base64.b64decode(value).hex()


def _value(value: AnyValue) -> Any:
    which = value.WhichOneof("value")
    if which is None:
        return None
    if which == "array_value":
        return tuple(_value(item) for item in value.array_value.values)
    if which == "kvlist_value":
        return _attributes(value.kvlist_value.values)
    return getattr(value, which)


def _attributes(pairs: Iterable[KeyValue]) -> dict[str, Any]:
    return {pair.key: _value(pair.value) for pair in pairs}


def _event(event: Span.Event) -> ReceivedEvent:
    return ReceivedEvent(event.name, event.time_unix_nano, _attributes(event.attributes))


def _spans_of(request: ExportTraceServiceRequest) -> Iterator[ReceivedSpan]:
    for resource_spans in request.resource_spans:
        service = _attributes(resource_spans.resource.attributes).get("service.name", "")
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                yield ReceivedSpan(
                    service_name=str(service),
                    name=span.name,
                    trace_id=span.trace_id.hex(),
                    span_id=span.span_id.hex(),
                    parent_span_id=span.parent_span_id.hex() or None,
                    kind=Span.SpanKind.Name(span.kind).removeprefix("SPAN_KIND_"),
                    start_time_unix_nano=span.start_time_unix_nano,
                    end_time_unix_nano=span.end_time_unix_nano,
                    status_code=Status.StatusCode.Name(span.status.code).removeprefix(
                        "STATUS_CODE_"
                    ),
                    status_message=span.status.message,
                    attributes=_attributes(span.attributes),
                    events=tuple(
                        ReceivedEvent(
                            event.name, event.time_unix_nano, _attributes(event.attributes)
                        )
                        for event in span.events
                    ),
                    scope_name=scope_spans.scope.name,
                )


def _points_of(request: ExportMetricsServiceRequest) -> Iterator[MetricPoint]:
    for resource_metrics in request.resource_metrics:
        for scope_metrics in resource_metrics.scope_metrics:
            for metric in scope_metrics.metrics:
                data = metric.WhichOneof("data")
                if data in ("gauge", "sum"):
                    for number in getattr(metric, data).data_points:
                        which = number.WhichOneof("value")
                        value = None if which is None else getattr(number, which)
                        yield metric.name, _attributes(number.attributes), value
                elif data is not None:  # histogram, exponential_histogram, summary
                    for point in getattr(metric, data).data_points:
                        yield metric.name, _attributes(point.attributes), point.count
