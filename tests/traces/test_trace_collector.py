"""`TraceCollector`: when a trace counts as complete, late spans, traces without a root, bounds.

Spans are made by the SDK and encoded as its OTLP exporters encode them; time is a clock the
test moves.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Span

from a2a_progress.otlp import ReceivedSpan, TraceCollector, spans_of
from support.clock import FakeClock

QUIET = 2.0


class Agent:
    """One service's tracer; `take` returns the spans it ended since, as one export request."""

    def __init__(self, service: str) -> None:
        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider(
            resource=Resource.create({"service.name": service}), shutdown_on_exit=False
        )
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.tracer = self.provider.get_tracer("test")

    def take(self) -> ExportTraceServiceRequest:
        spans: Sequence[ReadableSpan] = self.exporter.get_finished_spans()
        self.exporter.clear()
        return encode_spans(spans)


def names(spans: Iterable[ReceivedSpan]) -> list[str]:
    return sorted(span.name for span in spans)


def test_a_trace_is_complete_after_its_root_and_a_quiet_period() -> None:
    clock, caller, callee = FakeClock(), Agent("caller"), Agent("callee")
    collector = TraceCollector(QUIET, clock=clock)
    with caller.tracer.start_as_current_span("turn") as root:
        with callee.tracer.start_as_current_span("serve"):
            pass
        collector.add(callee.take())  # the callee's spans come first: no root yet
        clock.now += QUIET * 2
        assert collector.completed() == []
    collector.add(caller.take())
    clock.now += QUIET - 0.1
    assert collector.completed() == []
    clock.now += 0.1
    [done] = collector.completed()
    assert done.trace_id == format(root.get_span_context().trace_id, "032x")
    assert names(done.spans) == ["serve", "turn"]
    assert {span.service_name for span in done.spans} == {"caller", "callee"}
    assert done.late == 0
    assert done.has_root
    assert [s.name for s in spans_of(done.all_spans)] == [s.name for s in done.spans]
    assert collector.completed() == []  # handed out once


def test_late_spans_reopen_the_trace_with_only_them_as_new() -> None:
    clock, caller, callee = FakeClock(), Agent("caller"), Agent("callee")
    collector = TraceCollector(QUIET, clock=clock)
    with caller.tracer.start_as_current_span("turn") as root:
        late: Span = callee.tracer.start_span("slow tool")
    collector.add(caller.take())
    clock.now += QUIET
    [first] = collector.completed()
    late.end()
    collector.add(callee.take())
    assert collector.completed() == []  # quiet again first
    clock.now += QUIET
    [again] = collector.completed()
    assert again.trace_id == first.trace_id == format(root.get_span_context().trace_id, "032x")
    assert again.late == 1
    assert names(again.spans) == ["slow tool", "turn"]
    assert [s.name for s in spans_of(again.new_spans)] == ["slow tool"]
    assert names(list(spans_of(again.all_spans))) == ["slow tool", "turn"]


def test_a_trace_without_a_root_is_handed_out_after_a_longer_wait() -> None:
    clock, callee = FakeClock(), Agent("callee")
    collector = TraceCollector(QUIET, clock=clock)
    remote_parent = callee.tracer.start_span("never exported")
    with callee.tracer.start_as_current_span(
        "serve", context=trace.set_span_in_context(remote_parent)
    ):
        pass
    collector.add(callee.take())  # "never exported" is still open: the root never arrives
    clock.now += QUIET * 2
    assert collector.completed() == []
    clock.now += QUIET
    [done] = collector.completed()
    assert names(done.spans) == ["serve"]
    assert not done.has_root


def test_flush_hands_out_every_open_trace() -> None:
    clock, caller = FakeClock(), Agent("caller")
    collector = TraceCollector(QUIET, clock=clock)
    for name in ("one", "two"):
        with caller.tracer.start_as_current_span(name):
            pass
    collector.add(caller.take())
    assert names([t for done in collector.flush() for t in done.spans]) == ["one", "two"]
    assert collector.flush() == []


def test_past_max_traces_the_oldest_open_trace_is_handed_out_early() -> None:
    clock, caller = FakeClock(), Agent("caller")
    collector = TraceCollector(QUIET, max_traces=2, clock=clock)
    for name in ("first", "second", "third"):
        with caller.tracer.start_as_current_span(name):
            pass
        collector.add(caller.take())
    [early] = collector.completed()  # no time has passed: only the evicted one
    assert names(early.spans) == ["first"]
    clock.now += QUIET
    assert names([t for done in collector.completed() for t in done.spans]) == [
        "second",
        "third",
    ]


def test_a_trace_past_max_spans_is_handed_out_at_once_and_forgotten() -> None:
    clock, caller = FakeClock(), Agent("caller")
    collector = TraceCollector(QUIET, max_spans=3, clock=clock)
    with caller.tracer.start_as_current_span("root"):
        for index in range(4):
            with caller.tracer.start_as_current_span(f"child {index}"):
                pass
            collector.add(caller.take())
    collector.add(caller.take())  # the root
    [big] = collector.completed()  # at once: no time has passed
    assert names(big.spans) == ["child 0", "child 1", "child 2"]
    clock.now += QUIET
    [rest] = collector.completed()
    assert names(rest.spans) == ["child 3", "root"]
    assert rest.late == 0  # a trace of its own, not late spans of the first


def test_the_traces_kept_are_bounded_by_bytes_too() -> None:
    clock, agent = FakeClock(), Agent("big")
    collector = TraceCollector(QUIET, max_bytes=200_000, clock=clock)
    for index in range(40):  # ~20 KB a trace: 800 KB sent, 200 KB kept
        with agent.tracer.start_as_current_span(f"turn {index}") as root:
            root.set_attribute("payload", "x" * 20_000)
        collector.add(agent.take())
        assert collector.bytes_kept <= 200_000
        clock.now += QUIET
        [done] = collector.completed()
        assert [span.name for span in done.spans] == [f"turn {index}"]
    assert collector.bytes_kept > 100_000  # printed traces are kept, within the bound


def test_a_trace_alone_over_the_byte_bound_is_handed_out_at_once() -> None:
    clock, agent = FakeClock(), Agent("big")
    collector = TraceCollector(QUIET, max_bytes=50_000, clock=clock)
    with agent.tracer.start_as_current_span("turn") as root:
        for index in range(3):
            with agent.tracer.start_as_current_span(f"step {index}") as step:
                step.set_attribute("payload", "x" * 20_000)
            collector.add(agent.take())
        root.set_attribute("done", True)
    assert [names(trace.spans) for trace in collector.completed()] == [
        ["step 0", "step 1", "step 2"]
    ]
    assert collector.bytes_kept == 0
