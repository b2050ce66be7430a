"""OpenTelemetry instrumentation for A2A progress envelopes.

:class:`A2AProgressInstrumentor` wraps a2a-sdk's request handlers (callee) and ``BaseClient``
(caller). Envelopes flow exactly as before; each tool call they describe becomes an
``execute_tool {tool}`` span that opens on ``running`` and ends on ``done`` / ``aborted`` (or
with the turn), thinking, text, errors and output become span events, and the caller's trace
context travels with every call so both agents share one trace.

Usage::

    from a2a_progress.otel import A2AProgressInstrumentor

    A2AProgressInstrumentor().instrument()

or with no code change: ``opentelemetry-instrument python my_agent.py`` (entry point
``a2a_progress``; ``OTEL_PYTHON_DISABLED_INSTRUMENTATIONS=a2a_progress`` switches it off).

Keyword arguments of ``instrument()``: ``tracer_provider``, ``meter_provider``,
``capture_content``, ``content_max_length``, ``max_events_per_span``, ``sides``
(``{"caller", "callee"}``) and ``redactor``; each setting falls back to its environment variable
(see :mod:`a2a_progress.otel.config`). ``caller_tracer_provider`` / ``callee_tracer_provider``
give one side its own provider, e.g. for two services (``service.name``) in one process.
"""

from __future__ import annotations

import atexit
from collections.abc import Collection
from typing import Any

from opentelemetry.instrumentation.instrumentor import (  # type: ignore[attr-defined]
    BaseInstrumentor,
)
from opentelemetry.metrics import get_meter
from opentelemetry.trace import Tracer, TracerProvider, get_tracer

from a2a_progress.otel import callee, caller
from a2a_progress.otel.bridge import Bridge, end_live_turns
from a2a_progress.otel.config import SIDE_CALLEE, SIDE_CALLER, BridgeConfig
from a2a_progress.otel.conventions import SCHEMA_URL
from a2a_progress.otel.metrics import BridgeMetrics
from a2a_progress.otel.package import _instruments
from a2a_progress.otel.version import __version__

__all__ = ["A2AProgressInstrumentor"]

_shutdown_hook_registered = False


class A2AProgressInstrumentor(BaseInstrumentor):  # type: ignore[misc]
    """Instruments a2a-sdk callees and callers so progress envelopes become spans."""

    _bridge: Bridge | None = None

    def instrumentation_dependencies(self) -> Collection[str]:
        """The a2a-sdk versions this instrumentation supports."""
        return _instruments

    def _instrument(self, **kwargs: Any) -> None:
        global _shutdown_hook_registered  # noqa: PLW0603 - one process-wide exit hook

        def tracer(provider: TracerProvider | None) -> Tracer:
            return get_tracer(__name__, __version__, provider, schema_url=SCHEMA_URL)

        side_tracers = {
            side: tracer(kwargs[f"{side}_tracer_provider"])
            for side in (SIDE_CALLER, SIDE_CALLEE)
            if kwargs.get(f"{side}_tracer_provider") is not None
        }
        meter = get_meter(
            __name__, __version__, kwargs.get("meter_provider"), schema_url=SCHEMA_URL
        )
        bridge = Bridge(
            tracer(kwargs.get("tracer_provider")),
            BridgeMetrics(meter),
            BridgeConfig.resolve(kwargs),
            side_tracers,
        )
        callee.instrument(bridge)
        caller.instrument(bridge)
        A2AProgressInstrumentor._bridge = bridge
        if not _shutdown_hook_registered:
            # Registered after the SDK's providers, so it runs before they shut down (LIFO):
            # spans still open at exit end with reason "shutdown" and are exported.
            atexit.register(end_live_turns)
            _shutdown_hook_registered = True

    def _uninstrument(self, **kwargs: Any) -> None:
        bridge = A2AProgressInstrumentor._bridge
        if bridge is not None:
            bridge.active = False
        A2AProgressInstrumentor._bridge = None
        callee.uninstrument()
        caller.uninstrument()
