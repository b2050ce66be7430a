"""The libraries this instrumentation instruments (read by ``opentelemetry-instrument``)."""

_instruments = ("a2a-sdk >= 1.2.3, < 2",)

_supports_metrics = True
