"""The libraries this instrumentation instruments (read by ``opentelemetry-instrument``)."""

_instruments = ("a2a-sdk >= 0.3.26, < 2",)

_supports_metrics = True
