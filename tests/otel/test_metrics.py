"""Operator metrics: the tool-duration histogram and the envelope counters by outcome and kind,
on both sides, read with an InMemoryMetricReader."""

from opentelemetry.metrics import NoOpMeterProvider
from otel_support import (
    Telemetry,
    abort,
    attrs,
    call,
    complete,
    done,
    env,
    raw,
    serving,
    start,
    wire,
)

from a2a_progress.envelope import HARD_LIMIT_BYTES
from a2a_progress.otel import A2AProgressInstrumentor
from a2a_progress.otel import conventions as conv

SIDES = (conv.OBSERVER_CALLER, conv.OBSERVER_CALLEE)


async def test_tool_duration_histogram(telemetry: Telemetry) -> None:
    steps = [
        start("search", "s"),
        done("s"),
        start("fetch", "f"),
        abort("f", "gone"),
        start("shell", "x"),  # still open at the terminal state
        complete(),
    ]
    async with serving(steps) as served:
        await call(served.card_for("grpc"))
    [metric] = telemetry.metrics(conv.METRIC_TOOL_DURATION)
    assert metric.unit == "s"
    recorded = {
        (a[conv.GEN_AI_TOOL_NAME], a[conv.OBSERVER], a[conv.END_REASON]): (a, point)
        for a, point in telemetry.points(conv.METRIC_TOOL_DURATION)
    }
    # Both sides trace the calls: each is counted once, by the callee that ran it.
    assert set(recorded) == {
        (tool, conv.OBSERVER_CALLEE, reason)
        for tool, reason in (("search", "done"), ("fetch", "aborted"), ("shell", "turn_completed"))
    }
    for (tool, _, reason), (attributes, point) in recorded.items():
        expected = {conv.GEN_AI_TOOL_NAME, conv.OBSERVER, conv.END_REASON, conv.GEN_AI_AGENT_NAME}
        if reason == "aborted":
            assert attributes[conv.ERROR_TYPE] == "aborted"
            expected.add(conv.ERROR_TYPE)
        assert set(attributes) == expected, tool
        assert attributes[conv.GEN_AI_AGENT_NAME] == served.card.name
        assert point.count == 1
        assert point.sum >= 0
        # The conventions' buckets: a call under 5 s is told apart from another.
        assert tuple(point.explicit_bounds) == conv.TOOL_DURATION_BUCKETS


async def test_envelope_counters_by_outcome_and_kind(telemetry: Telemetry) -> None:
    steps = [
        env("thinking", 1, text="a"),
        env("tool_call", 2, stream_key="k", tool="search"),
        env("tool_call", 3, "done", stream_key="k", tool="search"),
        env("thinking", 1, text="a"),  # duplicate
        env("text", 4, text="password=hunter2hunter2"),  # accepted, and its content redacted
        env("tool_output_append", 5, stream_key="k", tool="search", chunk="more"),
        env("thinking", 5000, text="jump"),
        env("thinking", 6, text="too far behind to tell from a duplicate"),  # stale
        raw(None, "plain text"),  # degraded
        raw("{broken", "broken"),  # invalid
        raw(wire("thinking", 7, version=2, text="future"), "future"),  # unknown version
        raw("x" * (HARD_LIMIT_BYTES + 1), "huge"),  # oversize
        complete(),
    ]
    async with serving(steps) as served:
        await call(served.card_for("jsonrpc"))
    for observer in SIDES:
        assert telemetry.counts(conv.METRIC_ENVELOPES, conv.OUTCOME, observer) == {
            "accepted": 6,
            "duplicate": 2,
            "degraded": 1,
            "invalid": 1,
            "unknown_version": 1,
            "oversize": 1,
            "redacted": 1,
        }
        assert telemetry.counts(conv.METRIC_ENVELOPE_KINDS, conv.KIND, observer) == {
            "thinking": 2,
            "tool_call": 2,
            "text": 1,
            "tool_output_append": 1,
        }


async def test_without_a_meter_provider_spans_still_work(telemetry: Telemetry) -> None:
    telemetry.uninstrument()
    A2AProgressInstrumentor().instrument(
        tracer_provider=telemetry.tracer_provider, meter_provider=NoOpMeterProvider()
    )
    async with serving([start("search", "s"), done("s"), complete()]) as served:
        await call(served.card_for("rest"))
    # The callee's span (the caller, told the callee records the call, makes none).
    assert [attrs(span)[conv.OBSERVER] for span in telemetry.tool_spans()] == [conv.OBSERVER_CALLEE]
    assert telemetry.metrics(conv.METRIC_TOOL_DURATION) == []


def test_turn_counts_reach_the_counters_in_batches_and_at_the_end() -> None:
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader

    from a2a_progress.otel.metrics import BridgeMetrics, TurnCounts

    reader = InMemoryMetricReader()
    counts = TurnCounts(BridgeMetrics(MeterProvider([reader]).get_meter("t")), "caller", 3)

    def totals() -> dict[str, int]:
        data = reader.get_metrics_data()
        found: dict[str, int] = {}
        for resource in data.resource_metrics if data else ():
            for scope in resource.scope_metrics:
                # Only the envelope counter: some SDKs (1.41) also report the empty duration
                # histogram, whose points have no `.value`.
                for metric in scope.metrics:
                    if metric.name != conv.METRIC_ENVELOPES:
                        continue
                    for point in metric.data.data_points:
                        key = str(point.attributes.get("a2a.progress.outcome"))
                        found[key] = found.get(key, 0) + int(point.value)
        return found

    counts.outcome("accepted")
    counts.outcome("accepted")
    assert totals() == {}  # below the batch size: nothing added yet
    counts.outcome("duplicate")  # the third count flushes the batch
    assert totals() == {"accepted": 2, "duplicate": 1}
    counts.outcome("accepted")
    counts.flush()
    assert totals() == {"accepted": 3, "duplicate": 1}
