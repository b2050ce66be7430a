"""``a2a-progress traces`` holds its memory under the export that once took it to 1.4 GB.

The receiver runs as a real subprocess; the same one-span export with a million attributes
(16 MB of protobuf) is sent four times over real HTTP connections, and the process's resident
memory is read from ``/proc`` (``VmRSS`` now, ``VmHWM`` its peak). Measured on this project's
machine: 79 MB at start, a 198 MB peak, no growth from the second export on (before the limits:
a 1.4 GB peak, 728 MB held and ~110 MB more held per export). The first export may leave less
held than the second (once seen in CI: 99 MB, then 172 MB, 172 MB): the server's threads fill
the allocator's arenas as they take turns, so growth is counted from the second export on.
"""

from __future__ import annotations

import gzip
import socket
from pathlib import Path

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

from support.traces_process import many_attributes, post, running_traces

ATTRIBUTES = 1_000_000
MIB = 1024 * 1024
PEAK_BOUND = 256 * MIB
"""How far above its start the process may peak while parsing a 16 MB export."""
GROWTH_BOUND = 32 * MIB
"""How much more it may hold after the fourth export than after the second (two exports on)."""

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")


def memory(pid: int) -> tuple[int, int]:
    """The resident bytes of ``pid`` now and at its peak."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    return int(fields["VmRSS"].split()[0]) * 1024, int(fields["VmHWM"].split()[0]) * 1024


def test_a_million_attribute_export_four_times_stays_within_bounds() -> None:
    # The limit raised to let the 16 MB body in: the per-request caps must hold memory alone.
    with running_traces("--no-grpc", "--quiet-period", "0.2", "--max-request-mib", "32") as traces:
        pid = traces.process.pid
        start, _ = memory(pid)
        held = []
        for index in range(3):
            trace_id = bytes([index + 1]) * 16
            status, body = post(traces.http_address, many_attributes(trace_id, ATTRIBUTES))
            assert status == 200
            response = ExportTraceServiceResponse.FromString(body)
            assert response.partial_success.error_message == (
                f"dropped {ATTRIBUTES - 128} attributes over the limit of 128 each"
            )
            traces.out.wait_for(lambda lines, t=trace_id: any(t.hex() in x for x in lines))
            held.append(memory(pid)[0])
        _, peak = memory(pid)
        assert traces.alive()
    assert peak - start < PEAK_BOUND, (start, peak)
    assert held[2] - held[0] < GROWTH_BOUND, held


def head_only(address: tuple[str, int], length: int) -> int:
    """The status answered to a request head announcing a body of ``length`` bytes."""
    with socket.create_connection(address, timeout=60) as connection:
        connection.sendall(
            b"POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/"
            b"x-protobuf\r\nContent-Length: %d\r\n\r\n" % length
        )
        return int(connection.makefile("rb").readline().split()[1])


def test_by_default_the_same_export_is_refused_unread_and_its_gzip_too() -> None:
    body = many_attributes(b"\x01" * 16, ATTRIBUTES)
    with running_traces("--no-grpc") as traces:
        start, _ = memory(traces.process.pid)
        assert head_only(traces.http_address, len(body)) == 413
        squeezed = gzip.compress(body, compresslevel=1)
        assert len(squeezed) < 4 * MIB < len(body)
        assert post(traces.http_address, squeezed, headers={"Content-Encoding": "gzip"})[0] == 413
        _, peak = memory(traces.process.pid)
        assert traces.alive()
    assert peak - start < 32 * MIB, (start, peak)
