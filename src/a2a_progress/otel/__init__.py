"""OpenTelemetry instrumentation for A2A progress envelopes.

`A2AProgressInstrumentor` wraps a2a-sdk's request handlers (callee) and ``BaseClient``
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
(``{"caller", "callee"}``), ``redactor``, ``pending_spans``, ``invoke_agent_span``,
``mirror_spans`` and ``sigterm_handler``; each setting falls back to its environment variable
(see `a2a_progress.otel.config`). ``caller_tracer_provider`` /
``callee_tracer_provider`` give one side its own provider, e.g. for two services
(``service.name``) in one process.

With no SDK tracer or meter provider set (``opentelemetry-instrument`` without
``opentelemetry-distro``, or code that never sets one), spans or metrics would go nowhere: a
warning says so once, on the ``a2a_progress.otel`` logger, naming the fix
(`a2a_progress.otel.providers`).

What is process-wide: the patches on a2a-sdk's classes (request handlers, HTTP dispatchers,
``BaseClient``), the
``atexit`` hook and, when the application has none, the SIGTERM handler
(`a2a_progress.otel.shutdown`). Everything else — the bridge with its settings, live turns,
the turns by task id and the log-once memory — belongs to one instrumentation: ``uninstrument()``
removes the patches and gives SIGTERM back, and the next ``instrument()`` starts with a new
bridge. Per-request state is in context variables, never shared between requests: the A2A
method being served, and the tool spans current in each task
(`a2a_progress.otel.tool_context`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from typing import Any

from opentelemetry import trace
from opentelemetry.instrumentation.instrumentor import (  # type: ignore[attr-defined]
    BaseInstrumentor,
)
from opentelemetry.metrics import get_meter, get_meter_provider
from opentelemetry.trace import Tracer, TracerProvider, get_tracer

from a2a_progress.otel import callee, caller, inbound
from a2a_progress.otel.bridge import Bridge
from a2a_progress.otel.config import SIDE_CALLEE, SIDE_CALLER, BridgeConfig
from a2a_progress.otel.conventions import SCHEMA_URL
from a2a_progress.otel.metrics import BridgeMetrics
from a2a_progress.otel.package import _instruments
from a2a_progress.otel.pending import PendingExport
from a2a_progress.otel.providers import ProviderCheck
from a2a_progress.otel.shutdown import ExitHooks
from a2a_progress.otel.version import __version__

__all__ = ["A2AProgressInstrumentor"]

_PROVIDER_ARGUMENTS = ("tracer_provider", "caller_tracer_provider", "callee_tracer_provider")


class A2AProgressInstrumentor(BaseInstrumentor):  # type: ignore[misc]
    """Instruments a2a-sdk callees and callers so progress envelopes become spans."""

    _bridge: Bridge | None = None
    _exit_hooks: ExitHooks | None = None

    @property
    def bridge(self) -> Bridge | None:
        """The live instrumentation (settings, open turns), or None when not instrumented."""
        return self._bridge

    def instrumentation_dependencies(self) -> Collection[str]:
        """The a2a-sdk versions this instrumentation supports."""
        # package._instruments: an underscore by OpenTelemetry's convention, not privacy (every
        # contrib instrumentation's package.py names its targets so; its tooling reads them).
        return _instruments

    def _instrument(self, **kwargs: Any) -> None:
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

        def tracer_provider_of(side: str) -> object:
            # Asked when a marker is to be flushed: the global provider may be set after this.
            given = kwargs.get(f"{side}_tracer_provider") or kwargs.get("tracer_provider")
            return given or trace.get_tracer_provider()

        bridge = Bridge(
            tracer(kwargs.get("tracer_provider")),
            BridgeMetrics(meter),
            BridgeConfig.resolve(kwargs),
            side_tracers,
            PendingExport(tracer_provider_of),
        )
        inbound.instrument(bridge)
        callee.instrument(bridge)
        caller.instrument(bridge)
        given = [kwargs[name] for name in _PROVIDER_ARGUMENTS if kwargs.get(name) is not None]
        # Nothing silent: a provider nobody set makes spans or metrics that go nowhere.
        passed = {"tracer"} if given else set()
        if kwargs.get("meter_provider") is not None:
            passed.add("meter")
        check = ProviderCheck(frozenset(passed))
        check.at_instrument()
        bridge.on_first_turn = check.at_first_turn

        def providers() -> Iterator[object]:
            # The global providers are asked when a flush is due: they may be set after this.
            yield from given or [trace.get_tracer_provider()]
            # By name: `metrics.get_meter_provider()` would find our own submodule, since
            # importing a2a_progress.otel.metrics binds `metrics` in this package's namespace.
            yield kwargs.get("meter_provider") or get_meter_provider()

        hooks = ExitHooks(bridge, providers, take_sigterm=bridge.config.sigterm_handler)
        hooks.install()
        self._bridge, self._exit_hooks = bridge, hooks

    def _uninstrument(self, **kwargs: Any) -> None:
        bridge, hooks = self._bridge, self._exit_hooks
        self._bridge = self._exit_hooks = None
        if bridge is not None:
            bridge.active = False
        if hooks is not None:
            hooks.remove()
        inbound.uninstrument()
        callee.uninstrument()
        caller.uninstrument()
