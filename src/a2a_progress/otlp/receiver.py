"""`OtlpReceiver`: OTLP/HTTP and OTLP/gRPC on loopback, keeping what arrives in memory."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from a2a_progress.otlp.codec import ExportRequest, to_otlp_json
from a2a_progress.otlp.grpc_server import OtlpGrpcServer
from a2a_progress.otlp.http_server import OtlpHttpServer
from a2a_progress.otlp.limits import Limits
from a2a_progress.otlp.records import MetricPoint, ReceivedSpan, metric_points_of, spans_of

__all__ = ["OtlpReceiver"]


class OtlpReceiver:
    """An OTLP/HTTP and OTLP/gRPC receiver in background threads.

    Spans, metric points and trace requests are kept in memory; log records are only counted.

    Args:
        host: the address both servers bind.
        http_port: the OTLP/HTTP port; 0 picks a free one.
        grpc_port: the OTLP/gRPC port; 0 picks a free one, None serves no gRPC.
        response_delay: seconds every export waits, after it is recorded, before it is answered:
            a slow collector. `stop` releases waiting exports at once.
        limits: the bounds of one request (see `Limits`).
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        http_port: int = 0,
        grpc_port: int | None = 0,
        *,
        response_delay: float = 0.0,
        limits: Limits | None = None,
    ) -> None:
        self._host = host
        self._limits = limits
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
        self._http: OtlpHttpServer | None = None
        self._grpc: OtlpGrpcServer | None = None

    # -- lifecycle -----------------------------------------------------------------------------

    def start(self) -> OtlpReceiver:
        """Bind both ports and serve; returns ``self``.

        Raises:
            OSError: a port cannot be bound (e.g. it is taken); nothing is left running.
        """
        if self._http is not None:
            raise RuntimeError("OtlpReceiver already started")
        self._stopping.clear()
        try:
            self._http = OtlpHttpServer(
                self._host, self._http_port, self._export, self._reject, limits=self._limits
            )
            self._http.start()
            if self._grpc_port is not None:
                self._grpc = OtlpGrpcServer(
                    self._host, self._grpc_port, self._export, limits=self._limits
                )
                self._grpc.start()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """Stop both servers and release their ports and threads. Safe to call twice."""
        self._stopping.set()  # held (delayed) exports answer now
        if self._grpc is not None:
            self._grpc.stop()
            self._grpc = None
        if self._http is not None:
            self._http.stop()
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
        if self._http is None:
            raise RuntimeError("OtlpReceiver not started")
        return self._http.endpoint

    @property
    def grpc_endpoint(self) -> str | None:
        """The OTLP/gRPC target ``host:port``; None when gRPC is not served."""
        if self._http is None:
            raise RuntimeError("OtlpReceiver not started")
        return None if self._grpc is None else self._grpc.endpoint

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
        Path(path).write_text(to_otlp_json(merged) + "\n", "utf-8")
        return count

    # -- receiving -----------------------------------------------------------------------------

    def _export(self, request: ExportRequest) -> None:
        """Record one export request, then hold its answer for ``response_delay``."""
        with self._changed:
            self._requests += 1
            if isinstance(request, ExportTraceServiceRequest):
                self._trace_requests.append(request)
                self._spans.extend(spans_of(request))
            elif isinstance(request, ExportMetricsServiceRequest):
                self._metric_points.extend(metric_points_of(request))
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

    def _reject(self, reason: str) -> None:
        with self._changed:
            self._rejections.append(reason)
