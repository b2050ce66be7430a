"""Moved to `a2a_progress.otlp`; this module keeps the old imports working."""

from a2a_progress.otlp import MetricPoint, OtlpReceiver, ReceivedEvent, ReceivedSpan

__all__ = ["MetricPoint", "OtlpReceiver", "ReceivedEvent", "ReceivedSpan"]
