"""Fixtures of the OpenTelemetry bridge tests (helpers live in ``otel_support``).

Each test gets its own TracerProvider (SimpleSpanProcessor + InMemorySpanExporter) and
MeterProvider (InMemoryMetricReader), with ``A2AProgressInstrumentor`` instrumented on them and
uninstrumented afterwards.
"""

import os

# a2a-sdk reads this when imported; its own 66-88 spans per call would drown the bridge's.
os.environ["OTEL_INSTRUMENTATION_A2A_SDK_ENABLED"] = "false"

from collections.abc import Iterator

import pytest
from otel_support import Telemetry, instrumented


@pytest.fixture
def telemetry() -> Iterator[Telemetry]:
    """The bridge on in-memory providers; teardown checks every span ended exactly once."""
    with instrumented() as result:
        yield result
