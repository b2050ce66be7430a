"""In-memory telemetry for tests: a tracer provider whose spans the span ledger tracks and an
exporter keeps (or only checks), and a meter provider read in memory.

``otel_support.Telemetry`` (the bridge's tests) and ``faults.telemetry.Pipeline`` (the fault
tests) are this with their own queries.
"""

from __future__ import annotations

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from support.spans import SpanLedger


class MemoryTelemetry:
    """The providers and what they received: :attr:`exporter` keeps every ended span unless
    ``span_exporter`` is given (then that one gets them instead, e.g. one that only checks)."""

    def __init__(self, span_exporter: SpanExporter | None = None) -> None:
        self.ledger = SpanLedger()
        self.exporter = InMemorySpanExporter()
        self.reader = InMemoryMetricReader()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(self.ledger)
        exporter = self.exporter if span_exporter is None else span_exporter
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
        self.meter_provider = MeterProvider(metric_readers=[self.reader])

    def spans(self) -> list[ReadableSpan]:
        """The spans kept so far, in the order they ended."""
        return list(self.exporter.get_finished_spans())

    def assert_each_span_ended_once(self) -> None:
        """No span is still open, none ended without a start, and no span id was kept twice."""
        assert self.ledger.open() == []
        assert self.ledger.strays() == []
        ids = [span.context.span_id for span in self.spans() if span.context is not None]
        assert len(ids) == len(set(ids))

    def shutdown(self) -> None:
        self.tracer_provider.shutdown()
        self.meter_provider.shutdown()
