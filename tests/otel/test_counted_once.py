"""Each tool call is one execution in GenAI views, whichever sides are instrumented.

The callee that traces a call announces its span in the update that opens it (where it rides:
test_announcement_wire.py); the caller's mirror of that call links to it and carries no
``gen_ai.operation.name`` and no duration metric. A caller that hears no announcement (the
callee is not instrumented) is the only record: it counts.
"""

from otel_support import (
    Telemetry,
    abort,
    attrs,
    call,
    complete,
    done,
    serving,
    span_id,
    start,
)

from a2a_progress.otel import conventions as conv
from support.spans import COUNTED_BY

CALLER, CALLEE = conv.OBSERVER_CALLER, conv.OBSERVER_CALLEE
STEPS = [start("search", "s1"), done("s1"), start("fetch", "f1"), abort("f1", "gone"), complete()]


def executions(telemetry: Telemetry) -> list[tuple[str, str]]:
    """(tool, observer) of the spans a GenAI backend counts as tool executions."""
    return sorted(
        (attrs(span)[conv.GEN_AI_TOOL_NAME], attrs(span)[conv.OBSERVER])
        for span in telemetry.spans()
        if attrs(span).get(conv.GEN_AI_OPERATION_NAME) == conv.OPERATION_EXECUTE_TOOL
    )


def durations(telemetry: Telemetry) -> list[tuple[str, str, int]]:
    return sorted(
        (a[conv.GEN_AI_TOOL_NAME], a[conv.OBSERVER], point.count)
        for a, point in telemetry.points(conv.METRIC_TOOL_DURATION)
    )


async def test_both_sides_instrumented_count_each_call_once(telemetry: Telemetry) -> None:
    async with serving(STEPS) as served:
        await call(served.card_for("jsonrpc"))
    assert executions(telemetry) == [("fetch", CALLEE), ("search", CALLEE)]
    assert durations(telemetry) == [("fetch", CALLEE, 1), ("search", CALLEE, 1)]
    callee_spans = {attrs(s)[conv.GEN_AI_TOOL_NAME]: s for s in telemetry.tool_spans(CALLEE)}
    for mirror in telemetry.tool_spans(CALLER):
        # The mirror stays (its timing and events as the caller saw them) and links to the span
        # of the execution it mirrors.
        assert attrs(mirror)[conv.MIRROR] is True
        # Nothing a backend counts executions by (Phoenix counts any span with gen_ai.tool.name).
        assert not any(key.startswith(COUNTED_BY) for key in attrs(mirror))
        [link] = mirror.links
        real = callee_spans[attrs(mirror)[conv.MIRROR_TOOL_NAME]]
        assert link.context.span_id == span_id(real)
        assert link.context.trace_id == real.context.trace_id  # type: ignore[union-attr]
    # The failed call is an error on both sides, whoever counts it.
    for observer in (CALLER, CALLEE):
        [fetch] = [s for s in telemetry.tool_spans(observer) if "fetch" in s.name]
        assert attrs(fetch)[conv.ERROR_TYPE] == "aborted"


async def test_an_uninstrumented_callee_leaves_the_caller_as_the_record(
    telemetry: Telemetry,
) -> None:
    telemetry.instrument(sides="caller")  # the callee makes no spans and announces nothing
    async with serving(STEPS) as served:
        await call(served.card_for("grpc"))
    assert executions(telemetry) == [("fetch", CALLER), ("search", CALLER)]
    assert durations(telemetry) == [("fetch", CALLER, 1), ("search", CALLER, 1)]
    for span in telemetry.tool_spans(CALLER):
        assert conv.MIRROR not in attrs(span)
        assert span.links == ()


async def test_a_callee_seen_by_no_instrumented_caller_counts_alone(
    telemetry: Telemetry,
) -> None:
    telemetry.instrument(sides="callee")
    async with serving(STEPS) as served:
        await call(served.card_for("rest"))
    assert executions(telemetry) == [("fetch", CALLEE), ("search", CALLEE)]
    assert durations(telemetry) == [("fetch", CALLEE, 1), ("search", CALLEE, 1)]


def test_a_forged_or_broken_announcement_is_no_announcement() -> None:
    from a2a_progress.otel.announce import announced_value

    for value in ("", "00-zz", "00-" + "0" * 32 + "-" + "1" * 16 + "-01", "01-" + "a" * 49, 7.0):
        assert announced_value(value) is None
    context = announced_value("00-" + "a" * 32 + "-" + "b" * 16 + "-01")
    assert context is not None
    assert (context.trace_id, context.span_id) == (int("a" * 32, 16), int("b" * 16, 16))
