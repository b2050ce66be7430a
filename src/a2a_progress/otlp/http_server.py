"""OTLP/HTTP: ``POST /v1/traces``, ``/v1/metrics``, ``/v1/logs`` in a background thread."""

from __future__ import annotations

import socket
import sys
import threading
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Final, cast

from google.protobuf import json_format  # type: ignore[import-untyped]
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from a2a_progress.otlp.codec import (
    BAD_BODY,
    ENCODINGS,
    MAX_BODY_BYTES,
    BodyTooLargeError,
    ExportRequest,
    decompress,
    parse_request,
    response_for,
)

__all__ = ["GRPC_ON_HTTP_PORT", "OtlpHttpServer"]

_PATHS: Final[dict[str, type[ExportRequest]]] = {
    "/v1/traces": ExportTraceServiceRequest,
    "/v1/metrics": ExportMetricsServiceRequest,
    "/v1/logs": ExportLogsServiceRequest,
}
_PROTOBUF: Final = "application/x-protobuf"
_JSON: Final = "application/json"
_HTTP2_PREFACE: Final = b"PRI * HTTP/2.0"
GRPC_ON_HTTP_PORT: Final = "an HTTP/2 (OTLP/gRPC) client called the OTLP/HTTP port"
"""The rejection reason when an OTLP/gRPC exporter is pointed at the OTLP/HTTP port."""
# How long an HTTP connection may sit idle before its thread gives up (keeps stop() bounded).
_IDLE_TIMEOUT: Final = 5.0


class OtlpHttpServer:
    """An OTLP/HTTP server (HTTP/1.0, one request per connection) in background threads.

    Args:
        host: the address to bind (IPv4 or a host name).
        port: the port; 0 picks a free one.
        on_export: called with each parsed request, in the request's thread; the request is
            answered when it returns.
        on_reject: called with a reason for each body that is refused (415 or 400).

    Raises:
        OSError: from `start`, when the port cannot be bound (e.g. it is taken).
    """

    def __init__(
        self,
        host: str,
        port: int,
        on_export: Callable[[ExportRequest], None],
        on_reject: Callable[[str], None],
    ) -> None:
        self._address = (host, port)
        self._on_export = on_export
        self._on_reject = on_reject
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def endpoint(self) -> str:
        """The base URL, e.g. ``http://127.0.0.1:4318``; exporters add ``/v1/traces``."""
        if self._server is None:
            raise RuntimeError("OTLP/HTTP server not started")
        host = self._address[0]
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{self._server.server_address[1]}"

    def start(self) -> None:
        """Bind and serve."""
        self._server = _Server(self._address, self._on_export, self._on_reject)
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="otlp-receiver-http",
            daemon=True,
        )
        self._thread.start()

    def stop(self) -> None:
        """Stop serving and release the port and the threads. Safe to call twice."""
        if self._server is None:
            return
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join()
            self._thread = None
        self._server.server_close()  # joins the request threads
        self._server = None


class _Server(ThreadingHTTPServer):
    def __init__(
        self,
        address: tuple[str, int],
        on_export: Callable[[ExportRequest], None],
        on_reject: Callable[[str], None],
    ) -> None:
        # IPv6 hosts too (``::1``); the class attribute is what socketserver binds with.
        self.address_family = socket.getaddrinfo(*address, type=socket.SOCK_STREAM)[0][0]
        super().__init__(address, _Handler)
        self.on_export = on_export
        self.on_reject = on_reject

    def handle_error(self, request: object, client_address: object) -> None:
        """A request that broke (e.g. the exporter hung up): say why, print no traceback."""
        self.on_reject(f"a request failed: {sys.exc_info()[1]!r}")


class _Handler(BaseHTTPRequestHandler):
    timeout = _IDLE_TIMEOUT

    def parse_request(self) -> bool:
        request_line: bytes = getattr(self, "raw_requestline", b"")
        if request_line.startswith(_HTTP2_PREFACE):
            # Worth saying: the usual mistake of pointing a gRPC exporter at the HTTP port.
            cast("_Server", self.server).on_reject(GRPC_ON_HTTP_PORT)
        return super().parse_request()

    def do_POST(self) -> None:
        server = cast("_Server", self.server)
        request_type = _PATHS.get(self.path.split("?", 1)[0])
        if request_type is None:
            self._reply(HTTPStatus.NOT_FOUND, "text/plain", b"unknown OTLP path")
            return
        length = self.headers.get("Content-Length", "").strip()
        if not length.isdigit():
            # Every OTLP exporter sends a length; a chunked body would be read as empty.
            self._reply(HTTPStatus.LENGTH_REQUIRED, "text/plain", b"Content-Length required")
            return
        if int(length) > MAX_BODY_BYTES:
            server.on_reject(f"{self.path}: a body of {length} bytes")
            self._reply(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "text/plain", b"body too large")
            self.close_connection = True  # the body stays unread
            return
        content_type = (self.headers.get("Content-Type") or "").split(";", 1)[0].strip().lower()
        encoding = (self.headers.get("Content-Encoding") or "").strip().lower()
        body = self.rfile.read(int(length))
        if content_type not in (_PROTOBUF, _JSON) or encoding not in ENCODINGS:
            server.on_reject(f"{self.path}: {content_type!r} body, {encoding!r} encoding")
            self._reply(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "text/plain", b"unsupported body")
            return
        try:
            request = parse_request(request_type, decompress(body, encoding), content_type == _JSON)
        except BodyTooLargeError as error:
            server.on_reject(f"{self.path}: {error}")
            self._reply(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "text/plain", str(error).encode())
            return
        except BAD_BODY as error:
            server.on_reject(f"{self.path}: {error}")
            self._reply(HTTPStatus.BAD_REQUEST, "text/plain", str(error).encode())
            return
        server.on_export(request)
        response = response_for(request)
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
        """Quiet: a local receiver has no access log."""
