"""OTLP/HTTP: ``POST /v1/traces``, ``/v1/metrics``, ``/v1/logs`` in a background thread."""

from __future__ import annotations

import contextlib
import socket
import sys
import threading
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Final, cast

from google.protobuf import json_format  # type: ignore[import-untyped]
from google.rpc.status_pb2 import Status  # type: ignore[import-untyped]
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from a2a_progress.otlp.codec import (
    BAD_BODY,
    ENCODINGS,
    BodyTooLargeError,
    ExportRequest,
    decompress,
    parse_request,
    response_for,
)
from a2a_progress.otlp.limits import Admission, InvalidRequestError, Limits, admit
from a2a_progress.serving.guard import ANY_HOST, host_allowed, is_wildcard, served_names

__all__ = ["DEFAULT_MAX_CONNECTIONS", "GRPC_ON_HTTP_PORT", "OtlpHttpServer"]

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
DEFAULT_MAX_CONNECTIONS: Final = 64
"""Connections served at once (a thread each); more are answered 503 and closed."""
# How long an HTTP connection may sit idle before its thread gives up (keeps stop() bounded),
# and how long a whole body may take to arrive (a client trickling bytes holds no thread longer).
_IDLE_TIMEOUT: Final = 5.0
_BODY_DEADLINE: Final = 30.0
_CHUNK: Final = 256 * 1024
_BUSY: Final = (
    b"HTTP/1.0 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Length: 0\r\n"
    b"Connection: close\r\n\r\n"
)


class OtlpHttpServer:
    """An OTLP/HTTP server (HTTP/1.0, one request per connection) in background threads.

    Args:
        host: the address to bind (IPv4 or a host name).
        port: the port; 0 picks a free one.
        on_export: called with each parsed request (already cut to ``limits``), in the
            request's thread; the request is answered when it returns.
        on_reject: called with a reason for each request that is refused (4xx, 5xx). The
            reason quotes what the client sent: make it inert before printing it.
        limits: the bounds of one request (body size, spans, attributes…).
        max_connections: connections served at once; more get 503 and are closed.
        allowed_hosts: the ``Host`` names answered (any port); by default the loopback names
            and ``host`` itself, or any name when ``host`` is a wildcard address (``0.0.0.0``).

    Raises:
        OSError: from `start`, when the port cannot be bound (e.g. it is taken).
    """

    def __init__(
        self,
        host: str,
        port: int,
        on_export: Callable[[ExportRequest], None],
        on_reject: Callable[[str], None],
        *,
        limits: Limits | None = None,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
        allowed_hosts: Collection[str] | None = None,
    ) -> None:
        self._address = (host, port)
        self._on_export = on_export
        self._on_reject = on_reject
        self._limits = limits or Limits()
        self._max_connections = max(1, max_connections)
        if allowed_hosts is None:
            allowed_hosts = served_names(host, [ANY_HOST] if is_wildcard(host) else [])
        self._allowed_hosts = frozenset(allowed_hosts)
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
        self._server = _Server(
            self._address,
            _Settings(
                self._on_export,
                self._on_reject,
                self._limits,
                self._allowed_hosts,
                threading.BoundedSemaphore(self._max_connections),
            ),
        )
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


@dataclass(frozen=True)
class _Settings:
    on_export: Callable[[ExportRequest], None]
    on_reject: Callable[[str], None]
    limits: Limits
    allowed_hosts: frozenset[str]
    connections: threading.BoundedSemaphore


class _Server(ThreadingHTTPServer):
    # The listen backlog (socketserver's default is 5): connections past it are not refused but
    # stall in the kernel, accepted only as its retries come round.
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], settings: _Settings) -> None:
        # IPv6 hosts too (``::1``); the class attribute is what socketserver binds with.
        self.address_family = socket.getaddrinfo(*address, type=socket.SOCK_STREAM)[0][0]
        super().__init__(address, _Handler)
        self.settings = settings

    def process_request(self, request: Any, client_address: Any) -> None:
        """A thread for the connection, or a 503 when `max_connections` are being served."""
        if not self.settings.connections.acquire(blocking=False):
            with contextlib.suppress(OSError):
                request.settimeout(0)
                request.send(_BUSY)
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.settings.connections.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.settings.connections.release()

    def handle_error(self, request: object, client_address: object) -> None:
        """A request that broke (e.g. the exporter hung up): say why, print no traceback."""
        self.settings.on_reject(f"a request failed: {sys.exc_info()[1]!r}")


class _Handler(BaseHTTPRequestHandler):
    timeout = _IDLE_TIMEOUT

    def parse_request(self) -> bool:
        request_line: bytes = getattr(self, "raw_requestline", b"")
        if request_line.startswith(_HTTP2_PREFACE):
            # Worth saying: the usual mistake of pointing a gRPC exporter at the HTTP port.
            self._settings.on_reject(GRPC_ON_HTTP_PORT)
        return super().parse_request()

    @property
    def _settings(self) -> _Settings:
        return cast("_Server", self.server).settings

    def do_POST(self) -> None:
        settings = self._settings
        is_json = _media_type(self.headers.get("Content-Type")) == _JSON
        if not host_allowed(self.headers.get("Host"), settings.allowed_hosts):
            self._refuse(HTTPStatus.BAD_REQUEST, "this receiver does not answer to that Host")
            return
        request_type = _PATHS.get(self.path.split("?", 1)[0])
        if request_type is None:
            self._refuse(HTTPStatus.NOT_FOUND, "unknown OTLP path", log=False)
            return
        if len(self.headers.get_all("Content-Length") or ()) > 1 or (
            "Transfer-Encoding" in self.headers and "Content-Length" in self.headers
        ):
            # Two framings: which one a proxy in front believed is anyone's guess (smuggling).
            self.close_connection = True
            self._refuse(HTTPStatus.BAD_REQUEST, "ambiguous body length")
            return
        length = self.headers.get("Content-Length", "").strip()
        if not length.isdigit():
            # Every OTLP exporter sends a length; a chunked body would be read as empty.
            self._refuse(HTTPStatus.LENGTH_REQUIRED, "Content-Length required", log=False)
            return
        limit = settings.limits.request_bytes
        if int(length) > limit:
            self.close_connection = True  # the body stays unread
            self._refuse(
                HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"a body of {length} bytes, over {limit}"
            )
            return
        content_type = _media_type(self.headers.get("Content-Type"))
        encoding = (self.headers.get("Content-Encoding") or "").strip().lower()
        body = self._read_body(int(length))
        if body is None:
            self._refuse(HTTPStatus.REQUEST_TIMEOUT, "the body did not arrive in time")
            return
        if content_type not in (_PROTOBUF, _JSON) or encoding not in ENCODINGS:
            self._refuse(
                HTTPStatus.UNSUPPORTED_MEDIA_TYPE,
                f"a {content_type!r} body in {encoding!r} encoding: send "
                f"{_PROTOBUF} or {_JSON}, plain, gzip or deflate",
            )
            return
        try:
            request = parse_request(request_type, decompress(body, encoding, limit), is_json)
            admission = (
                admit(request, settings.limits)
                if isinstance(request, ExportTraceServiceRequest)
                else Admission()
            )
        except BodyTooLargeError as error:
            self._refuse(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, str(error))
            return
        except (*BAD_BODY, InvalidRequestError) as error:
            self._refuse(HTTPStatus.BAD_REQUEST, f"not an OTLP request: {error}")
            return
        del body
        try:
            settings.on_export(request)
        except Exception as error:  # noqa: BLE001 - the sink's failure is answered, not raised
            self._refuse(HTTPStatus.INTERNAL_SERVER_ERROR, f"a request failed: {error!r}")
            return
        response = response_for(request, admission.rejected, admission.message)
        if is_json:
            self._reply(HTTPStatus.OK, _JSON, json_format.MessageToJson(response).encode())
        else:
            self._reply(HTTPStatus.OK, _PROTOBUF, response.SerializeToString())

    def _read_body(self, length: int) -> bytes | None:
        """The body, or None when it takes longer than `_BODY_DEADLINE` to arrive, or stalls for
        `_IDLE_TIMEOUT`."""
        deadline = time.monotonic() + _BODY_DEADLINE
        chunks: list[bytes] = []
        left = length
        while left > 0:
            if time.monotonic() > deadline:
                self.close_connection = True
                return None
            try:
                chunk = self.rfile.read1(min(left, _CHUNK))
            except TimeoutError:  # idle for `_IDLE_TIMEOUT`
                self.close_connection = True
                return None
            if not chunk:
                break  # the client hung up: parse what came (it will not be a request)
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def _refuse(self, status: HTTPStatus, reason: str, *, log: bool = True) -> None:
        """Answer ``status`` with a ``google.rpc.Status`` body saying ``reason`` (as OTLP/HTTP
        asks, in the request's encoding), and report it."""
        if log:
            self._settings.on_reject(f"{self.path}: {reason}")
        message = Status(code=_GRPC_CODES.get(status, 2), message=reason)
        if _media_type(self.headers.get("Content-Type")) == _JSON:
            self._reply(status, _JSON, json_format.MessageToJson(message).encode())
        else:
            self._reply(status, _PROTOBUF, message.SerializeToString())

    def _reply(self, status: HTTPStatus, content_type: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: a local receiver has no access log."""


# google.rpc.Code of each refusal, for the Status body.
_GRPC_CODES: Final = {
    HTTPStatus.BAD_REQUEST: 3,  # INVALID_ARGUMENT
    HTTPStatus.NOT_FOUND: 5,
    HTTPStatus.LENGTH_REQUIRED: 3,
    HTTPStatus.REQUEST_ENTITY_TOO_LARGE: 8,  # RESOURCE_EXHAUSTED
    HTTPStatus.REQUEST_TIMEOUT: 4,  # DEADLINE_EXCEEDED
    HTTPStatus.UNSUPPORTED_MEDIA_TYPE: 3,
    HTTPStatus.INTERNAL_SERVER_ERROR: 13,
}


def _media_type(content_type: str | None) -> str:
    return (content_type or "").split(";", 1)[0].strip().lower()
