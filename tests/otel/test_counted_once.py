"""Each tool call is one execution in GenAI views, whichever sides are instrumented.

The callee that traces a call announces its span in the update that opens it (where it rides:
test_announcement_wire.py). Announced as sampled, the callee's span is the call's one record:
the caller makes no span of it, nor events of its stream (``mirror_spans`` makes a mirror, linked
to it, with no ``gen_ai.operation.name`` and no duration metric; so does an announcement of a
span the callee's sampler dropped). A caller that hears no announcement (the callee is not
instrumented) is the only record: it counts.
"""

import asyncio

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF
from otel_support import (
    Telemetry,
    abort,
    attrs,
    call,
    complete,
    done,
    envelope_of,
    events,
    output,
    parent_id,
    serving,
    span_id,
    start,
    user_message,
    wait,
)

from a2a_progress.envelope import Kind, Status
from a2a_progress.otel import conventions as conv
from a2a_progress.serving import create_client
from support.spans import COUNTED_BY

CALLER, CALLEE = conv.OBSERVER_CALLER, conv.OBSERVER_CALLEE
STEPS = [
    start("search", "s1"),
    output("s1", "3 files"),
    done("s1"),
    start("fetch", "f1"),
    abort("f1", "gone"),
    complete(),
]


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
    telemetry.instrument(mirror_spans=None)  # the default
    async with serving(STEPS, enable_output=True) as served:
        await call(served.card_for("jsonrpc"))
    assert executions(telemetry) == [("fetch", CALLEE), ("search", CALLEE)]
    assert durations(telemetry) == [("fetch", CALLEE, 1), ("search", CALLEE, 1)]
    # The callee recorded both calls (sampled): the caller makes no span of either, and keeps
    # none of their streams' events; the callee's spans, under its execution span, under the
    # caller's call span, are the trace's one record of each.
    assert telemetry.tool_spans(CALLER) == []
    call_span, execution = telemetry.turn_span(CALLER), telemetry.turn_span(CALLEE)
    assert events(call_span, conv.EVENT_OUTPUT) == []
    assert parent_id(execution) == span_id(call_span)
    for tool in telemetry.tool_spans(CALLEE):
        assert parent_id(tool) == span_id(execution)
    [search] = [s for s in telemetry.tool_spans(CALLEE) if "search" in s.name]
    assert [e[conv.CONTENT] for e in events(search, conv.EVENT_OUTPUT)] == ["3 files"]
    [fetch] = [s for s in telemetry.tool_spans(CALLEE) if "fetch" in s.name]
    assert attrs(fetch)[conv.ERROR_TYPE] == "aborted"
    # The caller still counted every envelope it read (4 tool_call, 1 output).
    assert telemetry.counts(conv.METRIC_ENVELOPE_KINDS, conv.KIND, CALLER) == {
        "tool_call": 4,
        "tool_output_append": 1,
    }


def assert_mirrors(telemetry: Telemetry, linked_to: dict[str, ReadableSpan] | None) -> None:
    """The caller's spans are mirrors: uncounted, each linked to the callee's span of its call
    (``linked_to``, by tool; None: a span the callee's sampler dropped, linked all the same)."""
    mirrors = telemetry.tool_spans(CALLER)
    assert sorted(attrs(m)[conv.MIRROR_TOOL_NAME] for m in mirrors) == ["fetch", "search"]
    for mirror in mirrors:
        assert attrs(mirror)[conv.MIRROR] is True
        # Nothing a backend counts executions by (Phoenix counts any span with gen_ai.tool.name).
        assert not any(key.startswith(COUNTED_BY) for key in attrs(mirror))
        [link] = mirror.links
        assert link.context.trace_id == mirror.context.trace_id  # type: ignore[union-attr]
        if linked_to is not None:
            assert link.context.span_id == span_id(linked_to[attrs(mirror)[conv.MIRROR_TOOL_NAME]])
        else:
            assert not link.context.trace_flags.sampled
    # The failed call is an error on the mirror too, whoever counts it.
    [fetch] = [m for m in mirrors if "fetch" in m.name]
    assert attrs(fetch)[conv.ERROR_TYPE] == "aborted"


async def test_a_call_cut_off_on_the_callers_side_is_written_by_the_caller(
    telemetry: Telemetry,
) -> None:
    # The caller stops reading while "fetch" runs: the callee's span of it may never say so (a
    # callee that dies with it exports nothing), so the caller writes its view of that call, a
    # mirror ended stream_closed from when the call opened; "search" ended on the callee's word.
    telemetry.instrument(mirror_spans=None, capture_content=False)
    gate = asyncio.Event()
    steps = [start("search", "s1"), done("s1"), start("fetch", "f1"), wait(gate), complete()]
    async with serving(steps) as served, create_client(served.card_for("jsonrpc")) as client:
        async for event in client.send_message(user_message()):
            found = envelope_of(event)
            if found and found.kind is Kind.TOOL_CALL and found.payload.get("tool") == "fetch":
                assert found.status is Status.RUNNING
                break
        gate.set()
    [mirror] = telemetry.tool_spans(CALLER)
    assert mirror.name == "execute_tool fetch"
    assert attrs(mirror)[conv.END_REASON] == "stream_closed"
    assert attrs(mirror)[conv.MIRROR] is True
    assert not any(key.startswith(COUNTED_BY) for key in attrs(mirror))
    [link] = mirror.links
    [fetch] = [s for s in telemetry.tool_spans(CALLEE) if "fetch" in s.name]
    assert link.context.span_id == span_id(fetch)
    assert (mirror.start_time or 0) <= (fetch.end_time or 0)


@pytest.mark.parametrize("capture_content", [False, True])
async def test_mirror_spans_keep_the_callers_view_of_each_call(
    telemetry: Telemetry, capture_content: bool
) -> None:
    # E.g. the callee's spans go to another backend.
    telemetry.instrument(mirror_spans=True, capture_content=capture_content)
    async with serving(STEPS, enable_output=True) as served:
        await call(served.card_for("rest"))
    assert executions(telemetry) == [("fetch", CALLEE), ("search", CALLEE)]
    assert durations(telemetry) == [("fetch", CALLEE, 1), ("search", CALLEE, 1)]
    callee_spans = {attrs(s)[conv.GEN_AI_TOOL_NAME]: s for s in telemetry.tool_spans(CALLEE)}
    assert_mirrors(telemetry, callee_spans)
    # The mirror keeps its events as the caller saw them.
    [search] = [m for m in telemetry.tool_spans(CALLER) if "search" in m.name]
    assert [e[conv.SEQ] for e in events(search, conv.EVENT_OUTPUT)] == [2]
    # With content, the call's result too, as the callee's span has it, under the mirror's own
    # name: gen_ai.tool.call.result belongs to the execute_tool span that counts (assert_mirrors).
    if capture_content:
        assert attrs(search)[conv.MIRROR_TOOL_CALL_RESULT] == "3 files"
        assert attrs(callee_spans["search"])[conv.GEN_AI_TOOL_CALL_RESULT] == "3 files"
    else:
        assert conv.MIRROR_TOOL_CALL_RESULT not in attrs(search)


async def test_a_call_the_callees_sampler_dropped_is_mirrored(telemetry: Telemetry) -> None:
    # The caller samples; the callee's own sampler drops its turn: it still announces each call
    # (the turn's unsampled context) and counts it, so the caller's span is a mirror.
    dropping = TracerProvider(sampler=ALWAYS_OFF)
    telemetry.instrument(callee_tracer_provider=dropping, mirror_spans=None)  # content on
    async with serving(STEPS, enable_output=True) as served:
        await call(served.card_for("jsonrpc"))
    assert telemetry.turn_spans(CALLEE) == []
    assert durations(telemetry) == [("fetch", CALLEE, 1), ("search", CALLEE, 1)]
    assert executions(telemetry) == []
    assert_mirrors(telemetry, None)


async def test_an_uninstrumented_callee_leaves_the_caller_as_the_record(
    telemetry: Telemetry,
) -> None:
    telemetry.instrument(sides="caller")  # the callee makes no spans and announces nothing
    async with serving(STEPS, enable_output=True) as served:
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
    async with serving(STEPS, enable_output=True) as served:
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


def test_only_a_valid_sampled_announcement_says_the_callee_records_the_call() -> None:
    from a2a_progress.otel.announce import announced_value, recorded

    valid = "00-" + "a" * 32 + "-" + "b" * 16 + "-"
    for value in (valid + "01", valid + "03", valid + "00", valid + "02", "", "00-zz", None, 7.0):
        context = announced_value(value)
        assert recorded(value) is (context is not None and context.trace_flags.sampled)
    assert recorded(valid + "01")
    assert not recorded("00-" + "0" * 32 + "-" + "b" * 16 + "-01")
    assert not recorded("00-" + "a" * 32 + "-" + "0" * 16 + "-01")
