"""The one span ledger: which spans a tracer provider started and which of them are still open.

An exporter only sees spans that ended; a ledger also sees the ones still open, and an end it
cannot match to a start (a span that ended twice, or one started before the last reset). A
second ``end()`` on the same span never reaches a processor (the SDK logs it instead, which tests
catch from the log), so a stray is a bug either way. Memory is bounded by the open spans, so a
ledger can watch a flood.
"""

from __future__ import annotations

from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor


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
