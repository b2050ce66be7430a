"""What one OTLP request may hold: spans and attributes past the limits are dropped, counted on
the span and reported back as OTLP partial success, over OTLP/HTTP (protobuf and JSON) and
OTLP/gRPC, through real connections to a receiver on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Iterator

import grpc
import pytest
from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2_grpc
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from a2a_progress.otlp import Limits, OtlpReceiver, to_otlp_json
from support.traces_process import JSON, post, request_of, span

LIMITS = Limits(spans=5, attributes=3, events=2, links=1)
TRACE = bytes.fromhex("0af7651916cd43dd8448eb211c80319c")


@pytest.fixture
def receiver() -> Iterator[OtlpReceiver]:
    with OtlpReceiver(limits=LIMITS) as running:
        yield running


def over_the_limits() -> ExportTraceServiceRequest:
    """7 spans (2 over); the first with 10 attributes (7 over), 4 events (2 over) with 5
    attributes each (2 over each kept), 3 links (2 over)."""
    spans = [span(TRACE, (index + 1).to_bytes(8, "big")) for index in range(7)]
    first = spans[0]
    first.attributes.extend(
        KeyValue(key=f"k{index}", value=AnyValue(int_value=index)) for index in range(10)
    )
    for index in range(4):
        event = first.events.add(name=f"event {index}")
        event.attributes.extend(KeyValue(key=f"e{n}") for n in range(5))
    for index in range(3):
        first.links.add(trace_id=TRACE, span_id=(index + 9).to_bytes(8, "big"))
    return request_of(*spans)


MESSAGE = (
    "dropped 2 spans over the limit of 5 per request; 11 attributes over the limit of 3 each; "
    "2 events over the limit of 2 per span; 2 links over the limit of 1 per span"
)


def assert_cut(receiver: OtlpReceiver) -> None:
    [request] = receiver.trace_requests()
    spans = [s for r in request.resource_spans for ss in r.scope_spans for s in ss.spans]
    assert len(spans) == 5
    first: Span = spans[0]
    assert [kv.key for kv in first.attributes] == ["k0", "k1", "k2"]
    assert first.dropped_attributes_count == 7
    assert [event.name for event in first.events] == ["event 0", "event 1"]
    assert first.dropped_events_count == 2
    assert [event.dropped_attributes_count for event in first.events] == [2, 2]
    assert len(first.links) == 1
    assert first.dropped_links_count == 2


def address(receiver: OtlpReceiver) -> tuple[str, int]:
    host, port = receiver.http_endpoint.removeprefix("http://").rsplit(":", 1)
    return host, int(port)


def test_over_http_protobuf(receiver: OtlpReceiver) -> None:
    status, body = post(address(receiver), over_the_limits().SerializeToString())
    assert status == 200
    response = ExportTraceServiceResponse()
    response.ParseFromString(body)
    assert response.partial_success.rejected_spans == 2
    assert response.partial_success.error_message == MESSAGE
    assert_cut(receiver)


def test_over_http_json(receiver: OtlpReceiver) -> None:
    body = to_otlp_json(over_the_limits()).encode()
    status, answer = post(address(receiver), body, content_type=JSON)
    assert status == 200
    partial = json.loads(answer)["partialSuccess"]
    assert partial == {"rejectedSpans": "2", "errorMessage": MESSAGE}
    assert_cut(receiver)


def test_over_grpc(receiver: OtlpReceiver) -> None:
    assert receiver.grpc_endpoint is not None
    with grpc.insecure_channel(receiver.grpc_endpoint) as channel:
        stub = trace_service_pb2_grpc.TraceServiceStub(channel)  # type: ignore[no-untyped-call]
        response = stub.Export(over_the_limits(), timeout=30)
    assert response.partial_success.rejected_spans == 2
    assert response.partial_success.error_message == MESSAGE
    assert_cut(receiver)


def test_within_the_limits_the_response_is_empty(receiver: OtlpReceiver) -> None:
    status, body = post(address(receiver), request_of(span(TRACE, b"\x01" * 8)).SerializeToString())
    assert status == 200
    assert json_format.MessageToDict(ExportTraceServiceResponse.FromString(body)) == {}


def test_a_grpc_message_over_the_request_limit_is_refused() -> None:
    with OtlpReceiver(limits=Limits(request_bytes=64 * 1024)) as small:
        big = request_of(span(TRACE, b"\x01" * 8, name="x" * 100_000))
        assert small.grpc_endpoint is not None
        with grpc.insecure_channel(small.grpc_endpoint) as channel:
            stub = trace_service_pb2_grpc.TraceServiceStub(channel)  # type: ignore[no-untyped-call]
            with pytest.raises(grpc.RpcError) as refused:
                stub.Export(big, timeout=30)
        assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert post(address(small), big.SerializeToString())[0] == 413
        assert small.request_count == 0
