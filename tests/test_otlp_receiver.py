"""The loopback OTLP receiver, fed by the SDK's real exporters and by hand-made OTLP/HTTP bodies.

The log signal's SDK and exporters are imported from OpenTelemetry's ``_logs`` and
``_log_exporter`` modules: they have no public path yet (the log SDK is still experimental).
This file's import fails, loudly, when they move.
"""

import base64
import gzip
import json
import socket
import threading
import urllib.error
import urllib.request
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format
from opentelemetry.exporter.otlp.proto.grpc._log_exporter import (
    OTLPLogExporter as GrpcLogExporter,
)
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http._log_exporter import (
    OTLPLogExporter as HttpLogExporter,
)
from opentelemetry.exporter.otlp.proto.http.trace_exporter import (
    OTLPSpanExporter as HttpSpanExporter,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import LogRecordExporter, SimpleLogRecordProcessor
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, Status, StatusCode

from a2a_progress.otlp import (
    DEFAULT_MAX_REQUEST_BYTES,
    OtlpHttpServer,
    OtlpReceiver,
    ReceivedEvent,
    ReceivedSpan,
)
from support.otlp import PROTOCOLS, Protocol, endpoint, metric_exporter, span_exporter
from support.processes import taken_port

TRACE_ID = "5b8efff798038103d269b633813fc60c"
SPAN_ID = "eee19b7ec3c1b174"
PARENT_ID = "eee19b7ec3c1b173"
JSON = "application/json"
PROTOBUF = "application/x-protobuf"


@pytest.fixture
def receiver() -> Iterator[OtlpReceiver]:
    with OtlpReceiver() as running:
        yield running


def provider_for(service: str, *exporters: SpanExporter) -> TracerProvider:
    provider = TracerProvider(
        resource=Resource.create({"service.name": service}), shutdown_on_exit=False
    )
    for exporter in exporters:
        provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider


def make_spans(provider: TracerProvider) -> None:
    """A SERVER span with every attribute type, an event and an error status, and a CLIENT child."""
    tracer = provider.get_tracer("test.scope", "1.0")
    with tracer.start_as_current_span(
        "parent",
        kind=SpanKind.SERVER,
        attributes={
            "str": "välue",
            "int": 7,
            "float": 2.5,
            "bool": True,
            "strs": ["a", "b"],
            "ints": [1, 2],
        },
    ) as parent:
        parent.add_event("happened", {"detail": "x", "n": 3})
        with tracer.start_as_current_span("child", kind=SpanKind.CLIENT):
            pass
        parent.set_status(Status(StatusCode.ERROR, "broken"))


def hexid(value: int, width: int) -> str:
    return format(value, f"0{width}x")


def assert_same(received: ReceivedSpan, sent: ReadableSpan, service: str) -> None:
    assert sent.context is not None
    assert received.service_name == service
    assert received.scope_name == "test.scope"
    assert received.name == sent.name
    assert received.trace_id == hexid(sent.context.trace_id, 32)
    assert received.span_id == hexid(sent.context.span_id, 16)
    assert received.parent_span_id == (
        None if sent.parent is None else hexid(sent.parent.span_id, 16)
    )
    assert received.kind == sent.kind.name
    assert received.start_time_unix_nano == sent.start_time
    assert received.end_time_unix_nano == sent.end_time
    assert received.status_code == sent.status.status_code.name
    assert received.status_message == (sent.status.description or "")
    assert received.attributes == dict(sent.attributes or {})
    assert [(e.name, e.time_unix_nano, e.attributes) for e in received.events] == [
        (e.name, e.timestamp, dict(e.attributes or {})) for e in sent.events
    ]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_spans_round_trip_through_the_real_exporter(
    receiver: OtlpReceiver, protocol: Protocol
) -> None:
    local = InMemorySpanExporter()
    provider = provider_for("svc", local, span_exporter(protocol, endpoint(receiver, protocol)))
    make_spans(provider)
    provider.shutdown()

    sent = {span.name: span for span in local.get_finished_spans()}
    received = {span.name: span for span in receiver.spans()}
    assert sorted(received) == ["child", "parent"]
    for name, span in received.items():
        assert_same(span, sent[name], "svc")
    assert received["parent"].attributes["strs"] == ("a", "b")
    assert received["parent"].kind == "SERVER"
    assert received["parent"].status_code == "ERROR"
    assert received["child"].parent_span_id == received["parent"].span_id
    assert receiver.request_count == receiver.response_count == 2
    assert sum(len(r.resource_spans) for r in receiver.trace_requests()) == 2


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_metric_points_from_the_real_exporter(receiver: OtlpReceiver, protocol: Protocol) -> None:
    reader = PeriodicExportingMetricReader(
        metric_exporter(protocol, endpoint(receiver, protocol)), export_interval_millis=3_600_000
    )
    provider = MeterProvider(metric_readers=[reader], shutdown_on_exit=False)
    meter = provider.get_meter("test.metrics")
    counter = meter.create_counter("calls")
    counter.add(2, {"tool": "search"})
    counter.add(3, {"tool": "search"})
    counter.add(1, {"tool": "fetch"})
    meter.create_up_down_counter("level").add(-1.5)
    histogram = meter.create_histogram("duration", unit="s")
    for value in (0.1, 0.2, 0.4):
        histogram.record(value, {"tool": "search"})
    assert provider.force_flush()
    provider.shutdown()

    points = receiver.metric_points()
    assert ("calls", {"tool": "search"}, 5) in points
    assert ("calls", {"tool": "fetch"}, 1) in points
    assert ("level", {}, -1.5) in points
    # A histogram point's value is its count of recorded values.
    assert ("duration", {"tool": "search"}, 3) in points


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_logs_are_accepted_and_counted(receiver: OtlpReceiver, protocol: Protocol) -> None:
    exporter: LogRecordExporter
    if protocol == "grpc":
        exporter = GrpcLogExporter(endpoint=receiver.grpc_endpoint, insecure=True)
    else:
        exporter = HttpLogExporter(endpoint=f"{receiver.http_endpoint}/v1/logs")
    provider = LoggerProvider(shutdown_on_exit=False)
    provider.add_log_record_processor(SimpleLogRecordProcessor(exporter))
    logger = provider.get_logger("test.logs")
    logger.emit(body="one")
    logger.emit(body="two")
    provider.shutdown()

    assert receiver.log_record_count == 2
    assert receiver.request_count == 2
    assert receiver.spans() == []


def post(
    receiver: OtlpReceiver,
    body: bytes,
    *,
    path: str = "/v1/traces",
    content_type: str = JSON,
    encoding: str | None = None,
) -> tuple[int, bytes]:
    headers = {"Content-Type": content_type}
    if encoding is not None:
        headers["Content-Encoding"] = encoding
    request = urllib.request.Request(
        receiver.http_endpoint + path, data=body, headers=headers, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def otlp_json_request() -> dict[str, Any]:
    """A trace request as the OTLP/JSON spec writes it: hex ids, integer enums, camelCase."""
    return {
        "resourceSpans": [
            {
                "resource": {
                    "attributes": [{"key": "service.name", "value": {"stringValue": "json-svc"}}]
                },
                "scopeSpans": [
                    {
                        "scope": {"name": "json.scope"},
                        "spans": [
                            {
                                "traceId": TRACE_ID,
                                "spanId": SPAN_ID,
                                "parentSpanId": PARENT_ID,
                                "name": "from-json",
                                "kind": 3,
                                "startTimeUnixNano": "1544712660000000000",
                                "endTimeUnixNano": 1544712661000000000,
                                "attributes": [
                                    {"key": "n", "value": {"intValue": "42"}},
                                    {
                                        "key": "tags",
                                        "value": {"arrayValue": {"values": [{"stringValue": "a"}]}},
                                    },
                                ],
                                "events": [
                                    {
                                        "timeUnixNano": "1544712660500000000",
                                        "name": "ev",
                                        "attributes": [{"key": "ok", "value": {"boolValue": True}}],
                                    }
                                ],
                                "status": {"code": 2, "message": "bad"},
                                "futureField": "receivers ignore unknown fields",
                            }
                        ],
                    }
                ],
            }
        ]
    }


@pytest.mark.parametrize("encoding", [None, "gzip", "deflate"])
def test_json_bodies_are_accepted(receiver: OtlpReceiver, encoding: str | None) -> None:
    body = json.dumps(otlp_json_request()).encode()
    if encoding == "gzip":
        body = gzip.compress(body)
    elif encoding == "deflate":
        body = zlib.compress(body)

    status, answer = post(receiver, body, encoding=encoding)

    assert (status, json.loads(answer)) == (200, {})
    [span] = receiver.spans()
    assert span == ReceivedSpan(
        service_name="json-svc",
        name="from-json",
        trace_id=TRACE_ID,
        span_id=SPAN_ID,
        parent_span_id=PARENT_ID,
        kind="CLIENT",
        start_time_unix_nano=1544712660000000000,
        end_time_unix_nano=1544712661000000000,
        status_code="ERROR",
        status_message="bad",
        attributes={"n": 42, "tags": ("a",)},
        events=(ReceivedEvent("ev", 1544712660500000000, {"ok": True}),),
        scope_name="json.scope",
    )


def test_gzip_from_the_real_http_exporter(receiver: OtlpReceiver) -> None:
    exporter = HttpSpanExporter(
        endpoint=f"{receiver.http_endpoint}/v1/traces", compression=Compression.Gzip
    )
    provider = provider_for("gzipped", exporter)
    make_spans(provider)
    provider.shutdown()

    assert {span.name for span in receiver.spans()} == {"parent", "child"}
    assert {span.service_name for span in receiver.spans()} == {"gzipped"}


@pytest.mark.parametrize(
    ("body", "headers", "expected"),
    [
        (b"", {"path": "/v1/nothing", "content_type": PROTOBUF}, 404),
        (b"{}", {"content_type": "text/plain"}, 415),
        (b"{}", {"encoding": "br"}, 415),
        (b"\xff\xff\xff", {"content_type": PROTOBUF}, 400),
        (b"{not json", {}, 400),
        (b"not gzip", {"encoding": "gzip"}, 400),
        (b'{"resourceSpans": 3}', {}, 400),
    ],
)
def test_bad_requests_are_refused_and_not_counted(
    receiver: OtlpReceiver, body: bytes, headers: dict[str, str], expected: int
) -> None:
    status, _ = post(receiver, body, **headers)
    assert status == expected
    assert receiver.request_count == 0


def test_json_ids_must_be_hex(receiver: OtlpReceiver) -> None:
    document = otlp_json_request()
    span = document["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    span["traceId"] = base64.b64encode(bytes.fromhex(TRACE_ID)).decode()  # base64, not OTLP/JSON
    status, _ = post(receiver, json.dumps(document).encode())
    assert status == 400
    assert receiver.spans() == []


def test_write_otlp_json(receiver: OtlpReceiver, tmp_path: Path) -> None:
    for service in ("first", "second"):
        provider = provider_for(service, span_exporter("grpc", endpoint(receiver, "grpc")))
        make_spans(provider)
        provider.shutdown()
    received = {(span.service_name, span.name): span for span in receiver.spans()}
    path = tmp_path / "trace.json"

    assert receiver.write_otlp_json(path) == 4

    text = path.read_text("utf-8")
    assert text.count("\n") == 1  # one request on one line, as the collector's file format
    document = json.loads(text)
    spans = [
        (resource, span)
        for resource in document["resourceSpans"]
        for scope in resource["scopeSpans"]
        for span in scope["spans"]
    ]
    assert len(spans) == 4
    for resource, span in spans:
        service = next(
            a["value"]["stringValue"]
            for a in resource["resource"]["attributes"]
            if a["key"] == "service.name"
        )
        expected = received[(service, span["name"])]
        assert span["traceId"] == expected.trace_id
        assert span["spanId"] == expected.span_id
        assert span.get("parentSpanId") == expected.parent_span_id
        assert span["kind"] == {"SERVER": 2, "CLIENT": 3}[expected.kind]
        assert int(span["startTimeUnixNano"]) == expected.start_time_unix_nano
        if expected.status_code == "ERROR":
            assert span["status"] == {"code": 2, "message": "broken"}

    # Ids back to protobuf's base64: the document is exactly the requests received.
    for _, span in spans:
        for key in ("traceId", "spanId", "parentSpanId"):
            if key in span:
                span[key] = base64.b64encode(bytes.fromhex(span[key])).decode()
    parsed = json_format.ParseDict(document, ExportTraceServiceRequest())
    merged = ExportTraceServiceRequest()
    for request in receiver.trace_requests():
        merged.resource_spans.extend(request.resource_spans)
    assert parsed == merged

    # And another receiver reads the file as an OTLP/JSON body.
    with OtlpReceiver(grpc_port=None) as again:
        assert post(again, text.encode())[0] == 200
        assert sorted(again.spans(), key=repr) == sorted(receiver.spans(), key=repr)


def test_wait_for_spans(receiver: OtlpReceiver) -> None:
    provider = provider_for("waited", span_exporter("http/protobuf", receiver.http_endpoint))
    worker = threading.Thread(target=make_spans, args=(provider,))
    worker.start()
    spans = receiver.wait_for_spans(lambda spans: len(spans) == 2)
    worker.join()
    provider.shutdown()
    assert {span.name for span in spans} == {"parent", "child"}

    with pytest.raises(TimeoutError, match=r"2 spans in 2 export requests \[waited/child"):
        receiver.wait_for_spans(lambda spans: len(spans) > 2, timeout=0.05)


def test_slow_receiver_holds_answers_until_stopped() -> None:
    slow = OtlpReceiver(response_delay=3600).start()
    results: list[SpanExportResult] = []
    exporter = HttpSpanExporter(endpoint=f"{slow.http_endpoint}/v1/traces", timeout=3600)
    provider = provider_for("slow")  # no processor: the test exports by hand
    span = provider.get_tracer("test.scope").start_span("held")
    span.end()
    assert isinstance(span, ReadableSpan)
    worker = threading.Thread(target=lambda: results.append(exporter.export([span])))
    try:
        worker.start()
        slow.wait_for_spans(lambda spans: len(spans) == 1)
        assert (slow.request_count, slow.response_count) == (1, 0)
        assert results == []
    finally:
        slow.stop()  # a stop that waited out the delay would hit the test timeout
    worker.join()
    assert results == [SpanExportResult.SUCCESS]
    assert slow.response_count == 1
    exporter.shutdown()


def test_stop_releases_ports_and_threads() -> None:
    before = set(threading.enumerate())
    receiver = OtlpReceiver().start()
    grpc_endpoint = receiver.grpc_endpoint
    assert grpc_endpoint is not None
    ports = [int(receiver.http_endpoint.rsplit(":", 1)[1]), int(grpc_endpoint.rsplit(":", 1)[1])]
    provider = provider_for("one", span_exporter("grpc", grpc_endpoint))
    make_spans(provider)
    provider.shutdown()

    receiver.stop()
    receiver.stop()  # idempotent

    for port in ports:
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
    for thread in set(threading.enumerate()) - before:
        thread.join(10)  # gRPC's own serving thread may take a moment to return after stop()
        assert not thread.is_alive(), thread.name
    assert len(receiver.spans()) == 2  # what was received stays readable


def test_endpoints() -> None:
    receiver = OtlpReceiver(grpc_port=None)
    with pytest.raises(RuntimeError, match="not started"):
        _ = receiver.http_endpoint
    with receiver:
        assert receiver.http_endpoint.startswith("http://127.0.0.1:")
        assert receiver.grpc_endpoint is None
        with pytest.raises(RuntimeError, match="already started"):
            receiver.start()


@pytest.mark.parametrize("taken", ["http", "grpc"])
def test_a_taken_port_is_an_os_error_and_leaves_nothing_bound(taken: str) -> None:
    with taken_port() as port:
        ports = {"http_port": port} if taken == "http" else {"grpc_port": port}
        receiver = OtlpReceiver(**ports)  # type: ignore[arg-type]
        with pytest.raises(OSError, match="in use"):
            receiver.start()
        with pytest.raises(RuntimeError, match="not started"):
            _ = receiver.http_endpoint
    # Nothing half-started stays behind: a fresh receiver starts.
    with OtlpReceiver():
        pass


def raw_post(receiver: OtlpReceiver, head: str) -> bytes:
    """Send a request head (no body) over a plain socket; the status line of the answer."""
    host, port = receiver.http_endpoint.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        connection.sendall(head.encode() + b"\r\n\r\n")
        return connection.makefile("rb").readline()


def test_a_body_too_large_is_refused_before_it_is_read(receiver: OtlpReceiver) -> None:
    status = raw_post(
        receiver,
        "POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {DEFAULT_MAX_REQUEST_BYTES + 1}",
    )
    assert status.split()[1] == b"413"
    assert receiver.request_count == 0


def test_a_compression_bomb_is_refused(receiver: OtlpReceiver) -> None:
    bomb = gzip.compress(b"0" * (DEFAULT_MAX_REQUEST_BYTES + 1))  # about 4 KB inflating to 4 MiB
    status, _ = post(receiver, bomb, content_type=PROTOBUF, encoding="gzip")
    assert status == 413
    assert receiver.request_count == 0


@pytest.mark.parametrize("length", ["abc", "-1", ""])
def test_a_bad_content_length_is_refused(receiver: OtlpReceiver, length: str) -> None:
    status = raw_post(
        receiver,
        f"POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {length}",
    )
    assert status.split()[1] == b"411"
    assert receiver.request_count == 0


def test_a_request_that_breaks_is_reported_not_printed(capfd: pytest.CaptureFixture[str]) -> None:
    def broken(request: object) -> None:
        raise RuntimeError("the sink broke")

    reasons: list[str] = []
    server = OtlpHttpServer("127.0.0.1", 0, broken, reasons.append)
    server.start()
    try:
        request = urllib.request.Request(
            f"{server.endpoint}/v1/traces", data=b"{}", headers={"Content-Type": JSON}
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
    finally:
        server.stop()
    assert refused.value.code == 500  # answered: the exporter is not left with a closed socket
    assert reasons == ["/v1/traces: a request failed: RuntimeError('the sink broke')"]
    assert "Traceback" not in capfd.readouterr().err
