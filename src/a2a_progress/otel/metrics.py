"""Operator metrics: tool call durations and envelope counts by outcome and kind."""

from __future__ import annotations

from opentelemetry.metrics import Meter

from a2a_progress.otel import conventions as conv


class BridgeMetrics:
    """The bridge's instruments, created once per instrumentation."""

    __slots__ = ("_duration", "_envelopes", "_kinds")

    def __init__(self, meter: Meter) -> None:
        self._duration = meter.create_histogram(
            conv.METRIC_TOOL_DURATION,
            unit="s",
            description="Duration of tool calls observed through progress envelopes.",
        )
        self._envelopes = meter.create_counter(
            conv.METRIC_ENVELOPES,
            unit="{envelope}",
            description="Progress updates observed, by outcome.",
        )
        self._kinds = meter.create_counter(
            conv.METRIC_ENVELOPE_KINDS,
            unit="{envelope}",
            description="Accepted progress envelopes, by kind.",
        )

    def record_duration(self, seconds: float, *, tool: str, observer: str, end_reason: str) -> None:
        """One tool call ended after ``seconds``."""
        self._duration.record(
            seconds,
            {conv.GEN_AI_TOOL_NAME: tool, conv.OBSERVER: observer, conv.END_REASON: end_reason},
        )

    def count_envelope(self, outcome: str, observer: str) -> None:
        """One working update had this ``outcome`` (accepted, duplicate, degraded, ...)."""
        self._envelopes.add(1, {conv.OUTCOME: outcome, conv.OBSERVER: observer})

    def count_kind(self, kind: str, observer: str) -> None:
        """One accepted envelope of this ``kind``."""
        self._kinds.add(1, {conv.KIND: kind, conv.OBSERVER: observer})
