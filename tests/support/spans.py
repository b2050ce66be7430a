"""The one span ledger: which spans a tracer provider started and which of them are still open.

An exporter only sees spans that ended; a ledger also sees the ones still open, and an end it
cannot match to a start (a span that ended twice, or one started before the last reset). A
second ``end()`` on the same span never reaches a processor (the SDK logs it instead, which tests
catch from the log), so a stray is a bug either way. Memory is bounded by the open spans, so a
ledger can watch a flood.

:func:`caller_spans` is the other way to see spans in memory: the bridge instrumented on the
caller side only, every span it ends kept in an exporter.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from typing import Any

from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from a2a_progress.otel import A2AProgressInstrumentor
from a2a_progress.otel import conventions as conv


class SpanLedger(SpanProcessor):
    """Add it to a ``TracerProvider`` with ``add_span_processor``."""

    def __init__(self) -> None:
        self.started_count = 0
        """Spans started since the last :meth:`reset`."""
        self.ended_count = 0
        """Ends that reached the ledger since the last :meth:`reset`."""
        self._open: dict[int, str] = {}
        self._strays: list[str] = []

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        self.started_count += 1
        self._open[span.context.span_id] = span.name

    def on_end(self, span: ReadableSpan) -> None:
        assert span.context is not None
        self.ended_count += 1
        if self._open.pop(span.context.span_id, None) is None:
            self._strays.append(span.name)

    def open(self) -> list[str]:
        """The names of the spans started and not ended."""
        return list(self._open.values())

    def strays(self) -> list[str]:
        """The names of the spans that ended here without a start to match (since the reset)."""
        return list(self._strays)

    def reset(self) -> None:
        """Forget everything (spans open now become strays when they end)."""
        self.started_count = self.ended_count = 0
        self._open.clear()
        self._strays.clear()


@contextlib.contextmanager
def caller_spans() -> Iterator[InMemorySpanExporter]:
    """The bridge instrumented on the caller side only (the callee's side is left alone), its
    spans kept in the yielded exporter, content captured; uninstrumented on exit."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrumentor = A2AProgressInstrumentor()
    instrumentor.instrument(caller_tracer_provider=provider, capture_content=True)
    try:
        yield exporter
    finally:
        instrumentor.uninstrument()
        provider.shutdown()


COUNTED_BY = ("gen_ai.operation.name", "gen_ai.tool.")
"""Attribute names GenAI backends count tool executions by: a mirror carries none of them."""


def tool_name(attributes: Mapping[str, Any]) -> Any:
    """A tool span's tool: ``gen_ai.tool.name`` on the span that counts, or the caller's mirror's
    own attribute (a mirror carries no ``gen_ai.*``)."""
    return attributes.get(conv.GEN_AI_TOOL_NAME, attributes.get(conv.MIRROR_TOOL_NAME))


def tool_call_id(attributes: Mapping[str, Any]) -> Any:
    """A tool span's call id, on the span that counts or on the caller's mirror."""
    return attributes.get(conv.GEN_AI_TOOL_CALL_ID, attributes.get(conv.MIRROR_TOOL_CALL_ID))


def tool_call_result(attributes: Mapping[str, Any]) -> Any:
    """A tool span's captured result, on the span that counts or on the caller's mirror."""
    return attributes.get(
        conv.GEN_AI_TOOL_CALL_RESULT, attributes.get(conv.MIRROR_TOOL_CALL_RESULT)
    )
