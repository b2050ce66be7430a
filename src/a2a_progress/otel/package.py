"""The libraries this instrumentation instruments (read by ``opentelemetry-instrument``)."""

# As pyproject.toml's range: 0.3.26, or 1.2.3 and later on 1.x.
_instruments = ("a2a-sdk >= 0.3.26, != 1.0.*, != 1.1.*, != 1.2.0, != 1.2.1, != 1.2.2, < 2",)

_supports_metrics = True
