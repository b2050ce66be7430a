"""Caller and callee spans over the real OTLP exporters, into a real OTLP receiver.

A callee and a caller on loopback, both instrumented, export as two services through
``BatchSpanProcessor`` and the SDK's OTLP exporter (gRPC and HTTP/protobuf) to an
:class:`OtlpReceiver`: over every A2A transport the caller's call span, the callee's execution
span and both observers' tool spans arrive in one trace, with the aborted tool an error, and the
bridge's tool-duration metric arrives over OTLP too.
"""

from collections.abc import Iterator

import pytest
from a2a.types import TaskState
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader

from a2a_progress.otlp import OtlpReceiver
from a2a_progress.serving import TRANSPORTS, Transport, serve_agent
from support import agents
from support.otlp import (
    PROTOCOLS,
    Protocol,
    assert_turn_trace,
    endpoint,
    has_turn_trace,
    instrumented_services,
    metric_exporter,
    span_exporter,
)


@pytest.fixture
def receiver() -> Iterator[OtlpReceiver]:
    with OtlpReceiver() as running:
        yield running


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_one_trace_from_caller_to_callee_tools(
    receiver: OtlpReceiver, protocol: Protocol, transport: Transport
) -> None:
    target = endpoint(receiver, protocol)
    # Metrics are pushed on demand (force_flush), never by the reader's own timer.
    reader = PeriodicExportingMetricReader(
        metric_exporter(protocol, target), export_interval_millis=3_600_000
    )
    meter_provider = MeterProvider(metric_readers=[reader], shutdown_on_exit=False)
    try:
        with instrumented_services(
            span_exporter(protocol, target), span_exporter(protocol, target), meter_provider
        ):
            async with serve_agent(agents.ToolAgent(), enable_v0_3_compat=False) as served:
                events = await agents.run_turn(served.card_for(transport))
            spans = receiver.wait_for_spans(has_turn_trace)
            assert meter_provider.force_flush()
    finally:
        meter_provider.shutdown()

    assert agents.summary(events) == agents.EXPECTED_ENVELOPES
    assert agents.final_state(events) == TaskState.TASK_STATE_COMPLETED
    assert_turn_trace(spans)

    # Each call counted once, by the callee that ran it (the caller, told so, makes no span of it).
    durations = {
        (attributes["gen_ai.tool.name"], attributes["a2a.progress.observer"]): (
            attributes["a2a.progress.end_reason"],
            attributes.get("error.type"),
            count,
        )
        for name, attributes, count in receiver.metric_points()
        if name == "gen_ai.execute_tool.duration"
    }
    assert durations == {
        ("search", "callee"): ("done", None, 1),
        ("fetch", "callee"): ("aborted", "aborted", 1),
    }
