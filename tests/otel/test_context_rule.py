"""The context rule of :mod:`a2a_progress.otel.tool_context`, over orders of opening and closing
that an agent rarely writes but that must never leave a closed tool span current."""

import contextvars
import itertools
import random

import pytest
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags

from a2a_progress.otel import tool_context
from a2a_progress.otel.tool_span import ToolSpan

_ids = itertools.count(1)


def tool() -> ToolSpan:
    span = NonRecordingSpan(SpanContext(1, next(_ids), False, TraceFlags(1)))
    return ToolSpan(span, 8, "t")


def current_id() -> int:
    return trace.get_current_span().get_span_context().span_id


def close(*tools: ToolSpan) -> None:
    for item in tools:
        item.is_open = False


def run(scenario: object) -> None:
    contextvars.copy_context().run(scenario)  # type: ignore[arg-type]


def test_a_tool_closed_below_the_innermost_is_never_current_again() -> None:
    def scenario() -> None:
        tool_context.reset()
        base = otel_context.get_current()
        z, a, b, c = tool(), tool(), tool(), tool()
        tool_context.after_enqueue([z])
        tool_context.after_enqueue([a])
        close(z)
        tool_context.after_enqueue(None)
        assert current_id() == a.span.get_span_context().span_id  # the innermost stays
        tool_context.after_enqueue([b])
        tool_context.after_enqueue([c])
        close(b)
        tool_context.after_enqueue(None)
        assert current_id() == c.span.get_span_context().span_id
        close(c)
        tool_context.after_enqueue(None)
        assert current_id() == a.span.get_span_context().span_id  # b closed: the open one
        close(a)
        tool_context.after_enqueue(None)
        assert otel_context.get_current() is base  # z closed: back to the start

    run(scenario)


@pytest.mark.parametrize("seed", range(40))
def test_random_orders_keep_an_open_tool_or_the_start_current(seed: int) -> None:
    def scenario() -> None:
        chooser = random.Random(seed)
        tool_context.reset()
        base = otel_context.get_current()
        opened: list[ToolSpan] = []
        for _ in range(30):
            live = [item for item in opened if item.is_open]
            if live and chooser.random() < 0.5:
                close(chooser.choice(live))
                tool_context.after_enqueue(None)
            else:
                new = tool()
                opened.append(new)
                tool_context.after_enqueue([new])
                assert current_id() == new.span.get_span_context().span_id
            live_ids = {item.span.get_span_context().span_id for item in opened if item.is_open}
            if live_ids:
                assert current_id() in live_ids
            else:
                assert otel_context.get_current() is base
        close(*opened)
        tool_context.after_enqueue(None)
        assert otel_context.get_current() is base

    run(scenario)


def test_in_order_closes_give_back_the_context_from_before_each_tool() -> None:
    def scenario() -> None:
        tool_context.reset()
        base = otel_context.get_current()
        outer, inner = tool(), tool()
        tool_context.after_enqueue([outer])
        in_outer = otel_context.get_current()
        tool_context.after_enqueue([inner])
        close(inner)
        tool_context.after_enqueue(None)
        assert otel_context.get_current() is in_outer
        close(outer)
        tool_context.after_enqueue(None)
        assert otel_context.get_current() is base

    run(scenario)
