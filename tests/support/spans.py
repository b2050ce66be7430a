"""The one span ledger: which spans a tracer provider started, and how often each ended.

An exporter only sees spans that ended (once); a ledger also sees the ones still open, and
an end that reaches a processor twice. (A second ``end()`` on the same span never reaches a
processor: the SDK logs it instead, which tests catch from the log.)
"""

from __future__ import annotations

from collections import Counter

from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor


class SpanLedger(SpanProcessor):
    """Add it to a ``TracerProvider`` with ``add_span_processor``."""

    def __init__(self) -> None:
        self.started: dict[int, str] = {}
        """Span id -> name of every span started since the last :meth:`reset`."""
        self.ended: Counter[int] = Counter()
        """Span id -> how often it ended, since the last :meth:`reset`."""
        self._strays: list[str] = []

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        self.started[span.context.span_id] = span.name

    def on_end(self, span: ReadableSpan) -> None:
        assert span.context is not None
        span_id = span.context.span_id
        if span_id not in self.started:
            self._strays.append(span.name)
        self.ended[span_id] += 1

    def open(self) -> list[str]:
        """The names of the spans started and not ended."""
        return [name for span_id, name in self.started.items() if not self.ended[span_id]]

    def strays(self) -> list[str]:
        """The names of the spans that ended here but started before the last :meth:`reset`."""
        return list(self._strays)

    def ended_count(self) -> int:
        """How many ends reached the ledger since the last :meth:`reset`."""
        return sum(self.ended.values())

    def reset(self) -> None:
        """Forget everything (spans open now become strays when they end)."""
        self.started.clear()
        self.ended.clear()
        self._strays.clear()
