"""What ``traces`` does with each export, on generated hostile spans: cut to the limits, grouped,
drawn and written; whatever the spans hold, nothing raises but the refusal of a bad id."""

from __future__ import annotations

import io

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span
from rich.console import Console

from a2a_progress.cli.trace_view import Waterfall
from a2a_progress.otlp import Limits, TraceCollector, to_otlp_json
from a2a_progress.otlp.limits import InvalidRequestError, admit
from support.terminal import SEQUENCES
from support.traces_process import request_of

UINT64 = st.integers(0, 2**64 - 1)
TEXT = st.text(max_size=40) | st.sampled_from(SEQUENCES)
IDS = st.sampled_from([b"\x01" * 8, b"\x02" * 8, b"\x03" * 8, b"\x04" * 8])


@st.composite
def spans(draw: st.DrawFn) -> Span:
    span = Span(
        trace_id=draw(st.sampled_from([b"\xaa" * 16, b"\xbb" * 16]) | st.binary(max_size=20)),
        span_id=draw(IDS | st.binary(max_size=9)),
        parent_span_id=draw(st.just(b"") | IDS),
        name=draw(TEXT),
        kind=draw(st.integers(0, 2**31 - 1)),  # type: ignore[arg-type]
        start_time_unix_nano=draw(UINT64),
        end_time_unix_nano=draw(UINT64),
    )
    span.status.code = draw(st.integers(0, 2**31 - 1))  # type: ignore[assignment]
    span.status.message = draw(TEXT)
    for key in draw(st.lists(TEXT, max_size=5)):
        span.attributes.append(KeyValue(key=key, value=AnyValue(string_value=key)))
    for name in draw(st.lists(TEXT, max_size=3)):
        span.events.add(name=name, time_unix_nano=draw(UINT64))
    return span


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(spans(), max_size=6), min_size=1, max_size=3), st.text(max_size=20))
def test_any_spans_are_cut_grouped_drawn_and_written(
    batches: list[list[Span]], service: str
) -> None:
    collector = TraceCollector(0.0, max_traces=3, max_bytes=2_000)
    for batch in batches:
        request: ExportTraceServiceRequest = request_of(*batch, service=service)
        try:
            admit(request, Limits(spans=4, attributes=2, events=1))
        except InvalidRequestError:
            assert any(len(s.trace_id) != 16 or len(s.span_id) != 8 for s in batch)
            continue
        collector.add(request)
    for trace in collector.completed() + collector.flush():
        console = Console(file=io.StringIO(), width=120)
        console.print(Waterfall(trace.spans))
        console.print(Waterfall(trace.spans).one_line())
        shown = console.file.getvalue()  # type: ignore[attr-defined]
        assert "\x1b" not in shown
        assert "\x9b" not in shown
        assert to_otlp_json(trace.all_spans)
