"""``a2a-progress traces`` never dies of what it is sent, and never lets it drive the terminal.

Each test runs the command as a user does (a subprocess on free ports) and sends it hostile
requests over real HTTP and gRPC connections: a 1,200-span parent chain, ids of the wrong
length, bodies that are not an OTLP object, a trace that cannot be written, and escape
sequences in everything a client chooses. Afterwards the process still runs and still prints
the next trace.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import grpc
import pytest
from google.rpc.status_pb2 import Status
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2_grpc

from a2a_progress.inert import inert
from a2a_progress.otlp.codec import to_otlp_dict
from support.processes import PROCESS_TIMEOUT
from support.terminal import SEQUENCES
from support.traces_process import JSON, Traces, chain, post, request_of, running_traces, span

DEEP = 1_200
TRACE = bytes.fromhex("0af7651916cd43dd8448eb211c80319c")
OTHER = bytes.fromhex("4bf92f3577b34da6a3ce929d0e0e4736")
SPAN = bytes.fromhex("b7ad6b7169203331")
HOSTILE_NAME = "name" + "".join(SEQUENCES)


def printed(traces: Traces, trace_id: bytes) -> list[str]:
    """Wait until the trace's title line is printed; every line so far."""
    title = f"trace {trace_id.hex()}"
    return traces.out.wait_for(lambda lines: any(line.startswith(title) for line in lines))


def still_serving(traces: Traces) -> None:
    """The process runs and draws a new trace."""
    fresh = bytes.fromhex("11111111111111111111111111111111")
    assert post(traces.http_address, request_of(span(fresh, SPAN)).SerializeToString())[0] == 200
    printed(traces, fresh)
    assert traces.alive()


def assert_inert(text: str) -> None:
    for sequence in SEQUENCES:
        if sequence not in ("\r",):
            assert sequence not in text, (sequence, text)
    assert "\x1b" not in text
    assert "\x9b" not in text


def status_of(body: bytes) -> Status:
    status = Status()
    status.ParseFromString(body)
    return status


def test_a_deep_chain_is_drawn_and_the_session_goes_on(tmp_path: Path) -> None:
    deep = chain(TRACE, DEEP)
    deepest = f"[{DEEP - 1}] step {DEEP - 1} "  # past the indentation drawn, the depth is said
    with running_traces("--quiet-period", "0.2", "--otlp-json", str(tmp_path)) as traces:
        assert post(traces.http_address, deep.SerializeToString())[0] == 200
        lines = traces.out.wait_for(lambda lines: any(deepest in line for line in lines))
        still_serving(traces)
    [title] = [line for line in lines if line.startswith(f"trace {TRACE.hex()}")]
    assert f"{DEEP} spans" in title
    assert max(len(line) for line in lines) < 1000  # not a square of the depth in characters
    assert json.loads((tmp_path / f"{TRACE.hex()}.json").read_text())["resourceSpans"]


WRONG_IDS = [
    ("traceId", span(b"\x01" * 200, SPAN)),
    ("traceId", span(b"", SPAN)),
    ("spanId", span(TRACE, b"\x02" * 9)),
    ("parentSpanId", span(TRACE, SPAN, b"\x03" * 3)),
]


def test_an_id_of_the_wrong_length_is_refused_naming_the_field(tmp_path: Path) -> None:
    with running_traces("--quiet-period", "0.2", "--otlp-json", str(tmp_path)) as traces:
        for field, bad in WRONG_IDS:
            request = request_of(bad)
            status, body = post(traces.http_address, request.SerializeToString())
            assert status == 400
            assert f"spans[0].{field}:" in status_of(body).message
            document = to_otlp_dict(request)
            status, body = post(
                traces.http_address, json.dumps(document).encode(), content_type=JSON
            )
            assert status == 400
            assert f"spans[0].{field}:" in json.loads(body)["message"]
            with grpc.insecure_channel(traces.grpc) as channel:
                stub = trace_service_pb2_grpc.TraceServiceStub(channel)  # type: ignore[no-untyped-call]
                with pytest.raises(grpc.RpcError) as refused:
                    stub.Export(request, timeout=PROCESS_TIMEOUT)
            assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert f"spans[0].{field}:" in (refused.value.details() or "")
        still_serving(traces)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["1" * 32 + ".json"]


def test_enum_values_no_version_of_otlp_defines_are_drawn_as_numbers() -> None:
    odd = span(TRACE, SPAN, name="odd")
    odd.kind = 99  # type: ignore[assignment]
    odd.status.code = 42  # type: ignore[assignment]
    with running_traces("--quiet-period", "0.2") as traces:
        assert post(traces.http_address, request_of(odd).SerializeToString())[0] == 200
        [line] = [line for line in printed(traces, TRACE) if line.startswith("trace ")]
        still_serving(traces)
    assert "odd" in line


def test_a_trace_that_cannot_be_written_is_said_once_and_the_session_goes_on(
    tmp_path: Path,
) -> None:
    (tmp_path / f"{TRACE.hex()}.json").mkdir()  # the trace's file cannot be written
    with running_traces("--quiet-period", "0.2", "--otlp-json", str(tmp_path)) as traces:
        for index in range(3):  # the trace, then late spans of it twice: rewritten each time
            late = span(TRACE, (index + 1).to_bytes(8, "big"))
            assert post(traces.http_address, request_of(late).SerializeToString())[0] == 200
            traces.out.wait_for(
                lambda lines, count=index + 1: (
                    sum(line.startswith(f"trace {TRACE.hex()}") for line in lines) >= count
                )
            )
        still_serving(traces)
        cannot = [line for line in traces.err.lines if "cannot write trace" in line]
    assert cannot == [f"a2a-progress traces: cannot write trace {TRACE.hex()}: Is a directory"]
    assert (tmp_path / ("1" * 32 + ".json")).is_file()


NOT_OBJECTS = {
    "number": b"5",
    "null": b"null",
    "array": b"[]",
    "string": b'"resourceSpans"',
    "deep-array": b"[" * 100_000 + b"]" * 100_000,
    "deep-object": b'{"a":' * 50_000 + b"1" + b"}" * 50_000,
    "deep-otlp": b'{"resourceSpans":[{"resource":{"attributes":[{"key":"k","value":'
    + b'{"arrayValue":{"values":[' * 500
    + b"{}"
    + b"]}}" * 500
    + b"}]}}]}",
    "spans-not-a-list": b'{"resourceSpans":5}',
    "bad-utf8": b'{"resourceSpans":"\xff"}',
}


def test_a_body_that_is_not_an_otlp_object_is_answered_400() -> None:
    with running_traces() as traces:
        for name, body in NOT_OBJECTS.items():
            status, answer = post(traces.http_address, body, content_type=JSON)
            assert status == 400, name
            assert json.loads(answer)["message"].startswith("not an OTLP request"), name
        still_serving(traces)


def raw(traces: Traces, request: bytes) -> bytes:
    """Send ``request`` as it is; the answer's status line."""
    with socket.create_connection(traces.http_address, timeout=PROCESS_TIMEOUT) as connection:
        connection.sendall(request)
        return connection.makefile("rb").readline()


def test_what_a_client_chooses_reaches_the_terminal_inert() -> None:
    # What HTTP/1.1 lets through: no whitespace (it would end the path or the header).
    sent = "".join(SEQUENCES).encode("latin-1", errors="ignore")
    hostile = bytes(byte for byte in sent if not chr(byte).isspace())
    with running_traces() as traces:
        host = f"127.0.0.1:{traces.http_address[1]}".encode()
        requests = [
            # A path, a content type, an encoding and a Host of the client's choosing.
            b"POST /v1/traces?"
            + hostile
            + b" HTTP/1.1\r\nHost: "
            + host
            + b"\r\nContent-Type: text/"
            + hostile
            + b"\r\nContent-Length: 2\r\n\r\n{}",
            b"POST /v1/traces HTTP/1.1\r\nHost: "
            + host
            + b"\r\nContent-Encoding: "
            + hostile
            + b"\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
            b"POST /v1/traces/"
            + hostile
            + b" HTTP/1.1\r\nHost: evil"
            + hostile
            + b"\r\nContent-Length: 2\r\n\r\n{}",
            b"POST /v1/traces HTTP/1.1\r\nHost: "
            + host
            + b"\r\nContent-Type: application/json\r\nContent-Length: 21\r\n\r\n"
            + b'{"x":"\\u001b]52;c;AA=',
        ]
        statuses = [raw(traces, request).split()[1] for request in requests]
        named = request_of(span(TRACE, SPAN, name=HOSTILE_NAME), service=HOSTILE_NAME)
        assert post(traces.http_address, named.SerializeToString())[0] == 200
        lines = printed(traces, TRACE)
        still_serving(traces)
        err = traces.err.wait_for(lambda lines: len(lines) >= 4)
    assert inert(HOSTILE_NAME, one_line=True)[:20] in "\n".join(lines)
    assert statuses == [b"415", b"415", b"400", b"400"]
    assert_inert("\n".join(lines + err))
    assert any("refused an export: /v1/traces?␛[2J" in line for line in err), err
