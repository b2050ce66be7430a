"""A collector that refuses connections, or answers slowly, never holds up an agent.

The caller and the callee export through ``BatchSpanProcessor`` and the real OTLP exporters
(gRPC and HTTP/protobuf) to a port that refuses connections, or to an :class:`OtlpReceiver` that
holds every request unanswered. Once each side's first export is stuck (retrying the refused
connection for tens of seconds, or held by the receiver, which has it, until the export
timeout), a second turn runs: both turns deliver every event and complete while those first
exports are still in flight, so nothing on the agent's path waits for the exporter.
"""

import asyncio
import threading
from collections.abc import Sequence
from typing import Literal

import pytest
from a2a.types import TaskState
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from a2a_progress.otlp import OtlpReceiver, ReceivedSpan
from a2a_progress.serving import serve_agent
from support import agents
from support.otlp import (
    CALLEE_SERVICE,
    CALLER_SERVICE,
    PROTOCOLS,
    Protocol,
    endpoint,
    instrumented_services,
    span_exporter,
)
from support.processes import refused_port

# How long the exporter may wait for one answer. The OTLP exporters retry a refused connection
# with backoffs of about 1, 2, 4, 8 and 16 s (at least 24 s in all, jitter included) within it.
EXPORT_TIMEOUT = 60.0
# The slow receiver would answer after an hour: only stop() releases its requests.
NEVER = 3600.0
# At most how long to wait for the batch processor to hand its first batch to the exporter, and
# for the slow receiver to have it: a bound on a failure, never a figure the test passes by.
FIRST_EXPORT_WAIT = 30.0

Collector = Literal["refused", "slow"]


class WatchedExporter(SpanExporter):
    """A real exporter, and whether its first export has started and finished."""

    def __init__(self, exporter: SpanExporter) -> None:
        self.exporter = exporter
        self.started = threading.Event()
        self.finished = threading.Event()

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.started.set()
        try:
            return self.exporter.export(spans)
        finally:
            self.finished.set()

    def shutdown(self) -> None:
        self.exporter.shutdown()

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return self.exporter.force_flush(timeout_millis)


def holds_both_sides(spans: list[ReceivedSpan]) -> bool:
    """Whether the receiver has an export of each side (its first: the exporter is held in it)."""
    return {span.service_name for span in spans} >= {CALLER_SERVICE, CALLEE_SERVICE}


def refused_target(protocol: Protocol) -> str:
    """An exporter target on a loopback port that refuses connections (bound, not listening)."""
    port = refused_port()
    return f"127.0.0.1:{port}" if protocol == "grpc" else f"http://127.0.0.1:{port}"


@pytest.mark.parametrize("collector", ["refused", "slow"])
@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_turns_complete_while_exports_are_stuck(
    protocol: Protocol, collector: Collector
) -> None:
    with OtlpReceiver(response_delay=NEVER) as slow:
        target = endpoint(slow, protocol) if collector == "slow" else refused_target(protocol)
        exporters = [
            WatchedExporter(span_exporter(protocol, target, timeout=EXPORT_TIMEOUT))
            for _side in ("caller", "callee")
        ]
        with instrumented_services(exporters[0], exporters[1]):
            try:
                async with serve_agent(agents.ToolAgent(), enable_v0_3_compat=False) as served:
                    card = served.card_for("jsonrpc")
                    first = await agents.run_turn(card)
                    for exporter in exporters:
                        assert await asyncio.to_thread(exporter.started.wait, FIRST_EXPORT_WAIT)
                    if collector == "slow":
                        # Stuck in the receiver, not on the way to it: an export that has started
                        # may still be connecting or sending (gRPC's channel connects on the first
                        # call), and a loaded machine can take longer over that than a turn.
                        await asyncio.to_thread(
                            slow.wait_for_spans, holds_both_sides, FIRST_EXPORT_WAIT
                        )
                    second = await agents.run_turn(card)
                    stuck = [not exporter.finished.is_set() for exporter in exporters]
                    answered = slow.response_count
                    held = slow.request_count
            finally:
                # Unblock the stuck exports (interrupt retries, release held requests) so the
                # providers' shutdown, which waits for the export in flight, is immediate.
                for exporter in exporters:
                    exporter.shutdown()
                slow.stop()

    for events in (first, second):
        assert agents.summary(events) == agents.EXPECTED_ENVELOPES
        assert agents.final_state(events) == TaskState.TASK_STATE_COMPLETED
    assert stuck == [True, True]
    assert answered == 0
    # The slow receiver holds each side's first export; nothing reaches a refused port.
    assert held == (2 if collector == "slow" else 0)
