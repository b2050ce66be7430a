"""Fixtures of the fault tests: the caller, in this process, instrumented on in-memory spans."""

import os

# a2a-sdk reads this when imported; its own 66-88 spans per call are not what is tested here.
os.environ.setdefault("OTEL_INSTRUMENTATION_A2A_SDK_ENABLED", "false")

from collections.abc import Iterator

import pytest

from .telemetry import Pipeline


@pytest.fixture
def caller() -> Iterator[Pipeline]:
    """The bridge instrumenting this process, keeping every span; each must end exactly once."""
    with Pipeline().instrumented() as pipeline:
        yield pipeline
