"""Spans grouped into traces, each handed out once it looks complete.

Exporters send spans as they end, in batches, from every process of a trace; nothing says when a
trace is over. `TraceCollector` calls a trace complete when a root span (one without a parent)
has arrived and no new span of the trace has arrived for a quiet period. A trace whose root
never arrives (its root lives in a process that does not export here) is handed out after a
longer wait, so it is shown all the same.

Spans that arrive after their trace was handed out reopen it: the trace is handed out again,
with every span so far (`CompletedTrace.spans`) and the late ones marked (`CompletedTrace.late`).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Final

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span

from a2a_progress.otlp.records import ReceivedSpan, spans_of

__all__ = ["DEFAULT_MAX_BYTES", "CompletedTrace", "TraceCollector"]

_ORPHAN_FACTOR: Final = 3
"""A trace with no root span is handed out after this many quiet periods."""
DEFAULT_MAX_BYTES: Final = 64 * 1024 * 1024
"""Bytes of spans (serialized OTLP) a `TraceCollector` keeps by default."""


@dataclass(frozen=True)
class CompletedTrace:
    """A trace handed out by `TraceCollector`."""

    trace_id: str
    """Lowercase hex."""
    spans: tuple[ReceivedSpan, ...]
    """Every span of the trace received so far, in arrival order."""
    late: int
    """How many of `spans` arrived after the trace was last handed out (0 the first time)."""
    new_spans: ExportTraceServiceRequest
    """The spans not handed out before, as OTLP (with their resources and scopes)."""
    all_spans: ExportTraceServiceRequest
    """Every span of the trace so far, as OTLP."""

    @property
    def has_root(self) -> bool:
        """Whether a span without a parent was received."""
        return any(span.parent_span_id is None for span in self.spans)


@dataclass
class _Trace:
    resource_spans: list[ResourceSpans] = field(default_factory=list)
    handed_out: int = 0  # how many of resource_spans' spans were handed out already
    spans: int = 0
    size: int = 0  # bytes of resource_spans, serialized
    has_root: bool = False
    last_arrival: float = 0.0
    done: bool = False  # handed out and not reopened since


class TraceCollector:
    """Groups the spans of OTLP trace export requests by trace; thread-safe.

    Args:
        quiet_period: seconds without a new span after which a trace with a root is complete.
        max_traces: traces kept (open or recently handed out); past it the oldest handed-out
            ones are forgotten, then the oldest open trace is handed out early.
        max_bytes: bytes of spans kept (as serialized OTLP) in all traces together; past it,
            the same.
        max_spans: spans kept of one trace; past it (or past ``max_bytes`` alone) the trace
            is handed out at once and forgotten (its later spans start a new, rootless one),
            so a trace that never goes quiet cannot grow without bound.
        clock: seconds, monotonic (a parameter so tests can drive time).
    """

    def __init__(
        self,
        quiet_period: float = 2.0,
        *,
        max_traces: int = 1000,
        max_bytes: int = DEFAULT_MAX_BYTES,
        max_spans: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._quiet = quiet_period
        self._max_traces = max_traces
        self._max_bytes = max_bytes
        self._max_spans = max_spans
        self._bytes = 0
        self._clock = clock
        self._lock = threading.Lock()
        self._traces: OrderedDict[bytes, _Trace] = OrderedDict()
        # The handed-out traces, oldest first: the first forgotten (found without a scan, so a
        # request of thousands of traces costs as many evictions, not their square).
        self._done: OrderedDict[bytes, None] = OrderedDict()
        self._forced: list[CompletedTrace] = []

    def add(self, request: ExportTraceServiceRequest) -> None:
        """Take the spans of one export request (any number of traces, resources, scopes)."""
        now = self._clock()
        with self._lock:
            for resource_spans in request.resource_spans:
                for scope_spans in resource_spans.scope_spans:
                    for trace_id, spans in _by_trace(scope_spans.spans).items():
                        self._add(trace_id, resource_spans, scope_spans, spans, now)
            while self._traces and (
                len(self._traces) > self._max_traces or self._bytes > self._max_bytes
            ):
                self._evict_one()

    @property
    def bytes_kept(self) -> int:
        """Bytes of spans (serialized) the collector holds now: at most ``max_bytes``."""
        with self._lock:
            return self._bytes

    def completed(self) -> list[CompletedTrace]:
        """The traces that completed since the last call, oldest first."""
        now = self._clock()
        with self._lock:
            ready = self._forced
            self._forced = []
            for trace_id, trace in self._traces.items():
                if trace.done:
                    continue
                waited = now - trace.last_arrival
                if waited >= self._quiet and (
                    trace.has_root or waited >= self._quiet * _ORPHAN_FACTOR
                ):
                    ready.append(self._hand_out(trace_id, trace))
            return ready

    def flush(self) -> list[CompletedTrace]:
        """Every trace not handed out yet, complete or not (e.g. when stopping)."""
        with self._lock:
            ready = self._forced
            self._forced = []
            ready.extend(
                self._hand_out(trace_id, trace)
                for trace_id, trace in self._traces.items()
                if not trace.done
            )
            return ready

    def _add(
        self,
        trace_id: bytes,
        resource_spans: ResourceSpans,
        scope_spans: ScopeSpans,
        spans: list[Span],
        now: float,
    ) -> None:
        trace = self._traces.get(trace_id)
        if trace is None:
            trace = self._traces[trace_id] = _Trace()
        self._traces.move_to_end(trace_id)
        part = ResourceSpans(resource=resource_spans.resource, schema_url=resource_spans.schema_url)
        part.scope_spans.append(
            ScopeSpans(scope=scope_spans.scope, schema_url=scope_spans.schema_url, spans=spans)
        )
        trace.resource_spans.append(part)
        size = part.ByteSize()
        trace.size += size
        self._bytes += size
        trace.spans += len(spans)
        trace.has_root = trace.has_root or any(not span.parent_span_id for span in spans)
        trace.last_arrival = now
        trace.done = False
        self._done.pop(trace_id, None)
        if trace.spans >= self._max_spans or trace.size >= self._max_bytes:
            self._forced.append(self._hand_out(trace_id, trace))
            self._forget(trace_id)

    def _evict_one(self) -> None:
        """Forget the oldest handed-out trace, or hand out the oldest open one early."""
        if self._done:
            self._forget(next(iter(self._done)))
            return
        trace_id, trace = next(iter(self._traces.items()))
        self._forced.append(self._hand_out(trace_id, trace))
        self._forget(trace_id)

    def _forget(self, trace_id: bytes) -> None:
        self._bytes -= self._traces.pop(trace_id).size
        self._done.pop(trace_id, None)

    def _hand_out(self, trace_id: bytes, trace: _Trace) -> CompletedTrace:
        every = ExportTraceServiceRequest(resource_spans=trace.resource_spans)
        new = ExportTraceServiceRequest(
            resource_spans=_after(trace.resource_spans, trace.handed_out)
        )
        late = trace.spans - trace.handed_out if trace.handed_out else 0
        trace.handed_out = trace.spans
        trace.done = True
        self._done[trace_id] = None
        return CompletedTrace(
            trace_id=trace_id.hex(),
            spans=tuple(spans_of(every)),
            late=late,
            new_spans=new,
            all_spans=every,
        )


def _by_trace(spans: Iterable[Span]) -> dict[bytes, list[Span]]:
    grouped: dict[bytes, list[Span]] = {}
    for span in spans:
        grouped.setdefault(span.trace_id, []).append(span)
    return grouped


def _after(parts: list[ResourceSpans], skip: int) -> list[ResourceSpans]:
    """The resource-spans parts after the first ``skip`` spans (each part starts a new batch)."""
    kept: list[ResourceSpans] = []
    for part in parts:
        count = sum(len(scope.spans) for scope in part.scope_spans)
        if skip >= count:
            skip -= count
        else:
            kept.append(part)
    return kept
