"""``a2a-progress traces`` as a subprocess on free ports, and OTLP requests made by hand for it."""

from __future__ import annotations

import contextlib
import http.client
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Final

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span

from support.processes import OutputLines, python_path, stop

TRACES: Final = [sys.executable, "-m", "a2a_progress.cli", "traces"]
PROTOBUF: Final = "application/x-protobuf"
JSON: Final = "application/json"


@dataclass
class Traces:
    process: subprocess.Popen[str]
    out: OutputLines
    err: OutputLines
    http: str
    grpc: str

    @property
    def http_address(self) -> tuple[str, int]:
        host, port = self.http.removeprefix("http://").rsplit(":", 1)
        return host, int(port)

    def alive(self) -> bool:
        return self.process.poll() is None


@contextlib.contextmanager
def running_traces(*args: str) -> Iterator[Traces]:
    """``a2a-progress traces`` with ``args``, on free ports, until the block ends."""
    process = subprocess.Popen(
        [*TRACES, "--http-port", "0", "--grpc-port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "220", "PYTHONPATH": python_path()},
    )
    try:
        assert process.stdout is not None
        assert process.stderr is not None
        out, err = OutputLines(process.stdout), OutputLines(process.stderr)
        banner = out.wait_for(lambda lines: any(line.startswith("Each trace") for line in lines))
        [http] = [line.split()[-1] for line in banner if line.startswith("  OTLP/HTTP ")]
        grpc = "".join(x.split()[-1] for x in banner if x.startswith("  OTLP/gRPC "))
        yield Traces(process, out, err, http, grpc)
    finally:
        stop(process)


def post(
    address: tuple[str, int],
    body: bytes,
    *,
    content_type: str = PROTOBUF,
    path: str = "/v1/traces",
    headers: Mapping[str, str] | None = None,
) -> tuple[int, bytes]:
    """POST ``body`` over a real HTTP connection; the status and body of the answer."""
    connection = http.client.HTTPConnection(*address, timeout=60)
    try:
        connection.request("POST", path, body, {"Content-Type": content_type, **(headers or {})})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def span(trace_id: bytes, span_id: bytes, parent: bytes = b"", name: str = "step") -> Span:
    return Span(
        trace_id=trace_id,
        span_id=span_id,
        parent_span_id=parent,
        name=name,
        kind=Span.SpanKind.SPAN_KIND_INTERNAL,
        start_time_unix_nano=1_000_000_000,
        end_time_unix_nano=2_000_000_000,
    )


def request_of(*spans: Span, service: str = "hostile") -> ExportTraceServiceRequest:
    """One export request holding ``spans``, from one service."""
    resource = ResourceSpans(scope_spans=[ScopeSpans(spans=spans)])
    resource.resource.attributes.append(
        KeyValue(key="service.name", value=AnyValue(string_value=service))
    )
    return ExportTraceServiceRequest(resource_spans=[resource])


def chain(trace_id: bytes, depth: int, name: str = "step") -> ExportTraceServiceRequest:
    """A trace whose ``depth`` spans each hang under the one before (the first is the root)."""
    ids = [(index + 1).to_bytes(8, "big") for index in range(depth)]
    return request_of(
        *(
            span(trace_id, ids[index], ids[index - 1] if index else b"", f"{name} {index}")
            for index in range(depth)
        )
    )


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        out.append(low | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _field(tag: int, payload: bytes) -> bytes:
    return bytes([tag]) + _varint(len(payload)) + payload


def many_attributes(trace_id: bytes, count: int) -> bytes:
    """A serialized export request of one span with ``count`` distinct attributes (16 bytes
    each on the wire: 1M make 16 MB), written directly as protobuf bytes: a second, not the
    minutes a million ``KeyValue`` objects take."""
    # Span.attributes (field 9) = KeyValue{key (1): "k%06d", value (2): AnyValue{string (1)}}
    attributes = b"".join(b"\x4a\x0e\x0a\x07k%06d\x12\x03\x0a\x01x" % i for i in range(count))
    head = request_of(span(trace_id, b"\x01" * 8))
    [resource_spans] = head.resource_spans
    spans = resource_spans.scope_spans[0].spans[0].SerializeToString() + attributes
    # ExportTraceServiceRequest.resource_spans (1) = ResourceSpans{resource (1),
    # scope_spans (2) = ScopeSpans{spans (2)}}
    resource = _field(0x0A, resource_spans.resource.SerializeToString())
    return _field(0x0A, resource + _field(0x12, _field(0x12, spans)))
