"""Say so, once, when the instrumentor's spans or metrics would go nowhere.

Until an application sets a tracer (meter) provider, OpenTelemetry's API hands out proxies that
record nothing; an instrumentor given none of its own then exports nothing, silently. Two ways
in are common: ``A2AProgressInstrumentor().instrument()`` in code that never sets an SDK
provider, and ``opentelemetry-instrument`` without ``opentelemetry-distro`` (the distro is what
installs the SDK providers and exporters from the ``OTEL_*`` variables).

`ProviderCheck` looks at ``instrument()``: under ``opentelemetry-instrument`` the distro
has configured everything before instrumentors load, so a provider missing then is missing for
good, and it warns at once. Otherwise the application may still set its providers after
instrumenting, so it looks again when the first turn starts, and warns then. Each warning is
logged once per instrumentation, naming the fix. A provider set to a no-op on purpose
(``NoOpTracerProvider``) is a choice, not a mistake: no warning.
"""

from __future__ import annotations

import logging
import sys
from typing import Final

from opentelemetry import metrics, trace

logger = logging.getLogger("a2a_progress.otel")

_DISTRO_FIX: Final = (
    "opentelemetry-instrument ran without opentelemetry-distro, which is what installs the SDK "
    "providers and exporters: pip install opentelemetry-distro opentelemetry-exporter-otlp"
)
_CODE_FIX: Final = {
    "tracer": "set one before the first call, e.g. trace.set_tracer_provider(TracerProvider()) "
    "with an exporter (opentelemetry-sdk), or pass instrument(tracer_provider=...)",
    "meter": "set one before the first call, e.g. metrics.set_meter_provider(MeterProvider("
    "metric_readers=[...])), or pass instrument(meter_provider=...)",
}

_OUTPUT: Final = {"tracer": "spans", "meter": "metrics"}


def under_auto_instrumentation() -> bool:
    """Whether this process runs under ``opentelemetry-instrument`` (its ``sitecustomize``)."""
    module = sys.modules.get("sitecustomize")
    return "auto_instrumentation" in str(getattr(module, "__file__", ""))


def _unset(kind: str) -> bool:
    """Whether the global ``kind`` provider is still the API's placeholder (nothing was set)."""
    if kind == "tracer":
        return isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)
    return type(metrics.get_meter_provider()).__name__ == "_ProxyMeterProvider"


class ProviderCheck:
    """Warns once per kind (``tracer``, ``meter``) whose spans or metrics would go nowhere.

    Args:
        given: the kinds whose provider was passed to ``instrument()`` (never checked).
    """

    def __init__(self, given: frozenset[str]) -> None:
        self._pending = {"tracer", "meter"} - given

    def at_instrument(self) -> None:
        """Check now if nothing can set the providers any more (``opentelemetry-instrument``)."""
        if under_auto_instrumentation():
            self._check()

    def at_first_turn(self) -> None:
        """Check at the first turn: the application had its chance to set its providers."""
        self._check()

    def _check(self) -> None:
        missing = [kind for kind in ("tracer", "meter") if kind in self._pending and _unset(kind)]
        self._pending.clear()
        if not missing:
            return
        what = " and ".join(f"no {kind} provider" for kind in missing)
        verb = "are" if len(missing) > 1 else "is"
        output = " and ".join(_OUTPUT[kind] for kind in missing)
        if under_auto_instrumentation():
            fix = _DISTRO_FIX
        else:
            fix = "; ".join(f"{kind}: {_CODE_FIX[kind]}" for kind in missing)
        logger.warning(
            "a2a-progress: %s %s set, so the instrumentor's %s go nowhere. Fix: %s",
            what,
            verb,
            output,
            fix,
        )
