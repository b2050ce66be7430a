"""OTLP/gRPC: the ``TraceService``, ``MetricsService`` and ``LogsService`` ``Export`` calls."""

from __future__ import annotations

import socket
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final

import grpc
from google.protobuf.message import Message  # type: ignore[import-untyped]
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2_grpc
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2_grpc
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2_grpc
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from a2a_progress.otlp.codec import ExportRequest, response_for
from a2a_progress.otlp.limits import Admission, InvalidRequestError, Limits, admit

__all__ = ["OtlpGrpcServer"]

_WORKERS: Final = 4
# Calls in progress at once (the workers' and those waiting for one); more are answered
# RESOURCE_EXHAUSTED at once instead of queueing without bound.
_MAX_CALLS: Final = 64


class OtlpGrpcServer:
    """An OTLP/gRPC server on a thread pool.

    Args:
        host: the address to bind.
        port: the port; 0 picks a free one.
        on_export: called with each request (already cut to ``limits``), in a worker thread;
            the call is answered when it returns.
        limits: the bounds of one request: its message size, spans, attributes…

    Raises:
        OSError: from `start`, when the port cannot be bound (e.g. it is taken).
    """

    def __init__(
        self,
        host: str,
        port: int,
        on_export: Callable[[ExportRequest], None],
        *,
        limits: Limits | None = None,
    ) -> None:
        self._host = host
        self._port = port
        self._on_export = on_export
        self._limits = limits or Limits()
        self._server: Any = None
        self._pool: ThreadPoolExecutor | None = None
        self._endpoint: str | None = None

    @property
    def endpoint(self) -> str:
        """The target ``host:port`` exporters dial."""
        if self._endpoint is None:
            raise RuntimeError("OTLP/gRPC server not started")
        return self._endpoint

    def start(self) -> None:
        """Bind and serve."""
        if self._port:
            # grpc logs its own error line to stderr on a taken port; find out first.
            _check_bindable(self._host, self._port)
        self._pool = ThreadPoolExecutor(_WORKERS, thread_name_prefix="otlp-receiver-grpc")
        # No SO_REUSEPORT: a second server must not silently share the port.
        self._server = grpc.server(
            self._pool,
            options=[
                ("grpc.so_reuseport", 0),
                ("grpc.max_receive_message_length", self._limits.request_bytes),
            ],
            maximum_concurrent_rpcs=_MAX_CALLS,
        )
        servicer = _Servicer(self._on_export, self._limits)
        trace_service_pb2_grpc.add_TraceServiceServicer_to_server(servicer, self._server)  # type: ignore[no-untyped-call]
        metrics_service_pb2_grpc.add_MetricsServiceServicer_to_server(servicer, self._server)  # type: ignore[no-untyped-call]
        logs_service_pb2_grpc.add_LogsServiceServicer_to_server(servicer, self._server)  # type: ignore[no-untyped-call]
        where = _host_port(self._host, self._port)
        try:
            bound = self._server.add_insecure_port(where)
        except RuntimeError:  # grpc's "Failed to bind", whatever the cause
            bound = 0
        if not bound:
            _check_bindable(self._host, self._port)
            raise OSError(f"OTLP/gRPC receiver could not bind {where}")
        self._server.start()
        self._endpoint = _host_port(self._host, bound)

    def stop(self) -> None:
        """Stop serving (cutting calls in progress) and release the port and threads."""
        if self._server is not None:
            self._server.stop(grace=None).wait()
            self._server = None
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None


def _host_port(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _check_bindable(host: str, port: int) -> None:
    """Raise the `OSError` that binding ``host:port`` gives, as grpc would bind it, if any."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as grpc does
            probe.bind((host, port))
    except OSError as error:
        raise OSError(error.errno, f"{error.strerror}: {host}:{port}") from None


class _Servicer(
    trace_service_pb2_grpc.TraceServiceServicer,
    metrics_service_pb2_grpc.MetricsServiceServicer,
    logs_service_pb2_grpc.LogsServiceServicer,
):
    """All three OTLP gRPC services: each ``Export`` request's type says its signal."""

    def __init__(self, on_export: Callable[[ExportRequest], None], limits: Limits) -> None:
        self._on_export = on_export
        self._limits = limits

    def Export(self, request: ExportRequest, context: Any) -> Message:  # noqa: N802 - gRPC name
        admission = Admission()
        if isinstance(request, ExportTraceServiceRequest):
            try:
                admission = admit(request, self._limits)
            except InvalidRequestError as error:
                context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))
        self._on_export(request)
        return response_for(request, admission.rejected, admission.message)
