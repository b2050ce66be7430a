"""The OTLP receiver under hostile clients on 127.0.0.1: malformed HTTP/1.1, oversized and
lying headers and bodies, compression bombs, slow and idle clients past the connection cap,
and gRPC messages and metadata past its limits. After each, it still accepts a real export.
Every exchange is bounded (``support.raw_http.WAIT``); a few hundred requests in all."""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator

import grpc
import pytest
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2_grpc

from a2a_progress.otlp import DEFAULT_MAX_REQUEST_BYTES, OtlpReceiver
from a2a_progress.otlp.http_server import DEFAULT_MAX_CONNECTIONS
from support.raw_http import exchange, idle_connections, malformed, status, trickle
from support.traces_process import PROTOBUF, post, request_of, span

ZEROS = b"\0" * (DEFAULT_MAX_REQUEST_BYTES + 1)  # compresses to ~4 KB
TRACE = bytes.fromhex("0af7651916cd43dd8448eb211c80319c")


@pytest.fixture(scope="module")
def receiver() -> Iterator[OtlpReceiver]:
    with OtlpReceiver() as running:
        yield running


def address(receiver: OtlpReceiver) -> tuple[str, int]:
    host, port = receiver.http_endpoint.removeprefix("http://").rsplit(":", 1)
    return host, int(port)


def host(receiver: OtlpReceiver) -> bytes:
    return receiver.http_endpoint.removeprefix("http://").encode()


def accepts_an_export(receiver: OtlpReceiver) -> None:
    before = receiver.request_count
    request = request_of(span(TRACE, before.to_bytes(8, "big") or b"\x01" * 8))
    assert post(address(receiver), request.SerializeToString())[0] == 200
    assert receiver.request_count == before + 1


@pytest.mark.parametrize("name", list(malformed(b"h", b"/v1/traces")))
def test_malformed_http_is_refused_and_the_receiver_goes_on(
    receiver: OtlpReceiver, name: str
) -> None:
    before = receiver.request_count
    answer = exchange(address(receiver), malformed(host(receiver), b"/v1/traces")[name])
    code = status(answer)
    assert code is None or 400 <= code < 500, answer[:200]
    assert receiver.request_count == before  # nothing malformed was taken as an export
    accepts_an_export(receiver)


def post_raw(receiver: OtlpReceiver, body: bytes, **headers: str) -> int | None:
    head = f"POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {len(body)}\r\n"
    head += "".join(f"{name.replace('_', '-')}: {value}\r\n" for name, value in headers.items())
    return status(exchange(address(receiver), head.encode() + b"\r\n" + body))


@pytest.mark.parametrize(
    ("body", "headers", "expected"),
    [
        (gzip.compress(ZEROS), {"Content_Encoding": "gzip"}, 413),
        (zlib.compress(ZEROS), {"Content_Encoding": "deflate"}, 413),
        (gzip.compress(b"x")[:-4], {"Content_Encoding": "gzip"}, 400),  # truncated
        (b"not gzip", {"Content_Encoding": "gzip"}, 400),
        (gzip.compress(gzip.compress(b"{}")), {"Content_Encoding": "gzip, gzip"}, 415),
        (b"{}", {"Content_Encoding": "br"}, 415),
        (b"\xff\xfe\x00", {}, 400),  # not protobuf
        (b"\x0a\xff\xff\xff\xff\x0f", {}, 400),  # a length past the end
    ],
    ids=["gzip-bomb", "deflate-bomb", "truncated", "not-gzip", "stacked", "brotli", "junk", "len"],
)
def test_bodies_and_encodings(
    receiver: OtlpReceiver, body: bytes, headers: dict[str, str], expected: int
) -> None:
    assert post_raw(receiver, body, Content_Type=PROTOBUF, **headers) == expected
    accepts_an_export(receiver)


def test_a_foreign_host_is_refused(receiver: OtlpReceiver) -> None:
    body = request_of(span(TRACE, b"\x02" * 8)).SerializeToString()
    for name in ("evil.example", "127.0.0.1.evil.example", ""):
        head = f"POST /v1/traces HTTP/1.1\r\nHost: {name}\r\nContent-Type: {PROTOBUF}\r\n"
        request = head.encode() + b"Content-Length: %d\r\n\r\n" % len(body) + body
        assert status(exchange(address(receiver), request)) == 400, name
    accepts_an_export(receiver)


def test_connections_past_the_cap_are_answered_503_and_then_served(
    receiver: OtlpReceiver,
) -> None:
    with idle_connections(address(receiver), DEFAULT_MAX_CONNECTIONS):
        body = request_of(span(TRACE, b"\x03" * 8)).SerializeToString()
        assert post_raw(receiver, body, Content_Type=PROTOBUF) == 503
    # The idle ones close; their threads end; exports are served again.
    for _ in range(50):
        if post_raw(receiver, body, Content_Type=PROTOBUF) == 200:
            break
    else:
        pytest.fail("the receiver did not serve again once the idle connections closed")


def test_a_slow_client_is_cut_off_and_others_are_served(receiver: OtlpReceiver) -> None:
    head = b"POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    head += b"Content-Length: 100\r\n\r\n{"  # and then nothing more: the body never comes
    accepts_an_export(receiver)
    answer = trickle(address(receiver), head, seconds=2.0, answer_within=8.0)
    assert status(answer) in (408, None)  # answered 408 once idle for 5 s, or cut off
    accepts_an_export(receiver)


def grpc_stub(receiver: OtlpReceiver) -> trace_service_pb2_grpc.TraceServiceStub:
    assert receiver.grpc_endpoint is not None
    channel = grpc.insecure_channel(receiver.grpc_endpoint)
    return trace_service_pb2_grpc.TraceServiceStub(channel)  # type: ignore[no-untyped-call]


def test_grpc_limits(receiver: OtlpReceiver) -> None:
    stub = grpc_stub(receiver)
    big = request_of(span(TRACE, b"\x04" * 8, name="x" * (DEFAULT_MAX_REQUEST_BYTES + 1)))
    with pytest.raises(grpc.RpcError) as too_big:
        stub.Export(big, timeout=30)
    assert too_big.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    with pytest.raises(grpc.RpcError) as huge_metadata:
        stub.Export(
            request_of(span(TRACE, b"\x05" * 8)),
            metadata=[("x-big", "v" * 100_000)],
            timeout=30,
        )
    assert huge_metadata.value.code() in (
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.UNAVAILABLE,
    )
    response = stub.Export(request_of(span(TRACE, b"\x06" * 8)), timeout=30)
    assert not response.partial_success.rejected_spans
