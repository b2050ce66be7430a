"""e2e_loopback and vs_a2a_sdk_tracing: our tracing, a2a-sdk's own, and none, in one process.

The ``e2e_loopback`` workload (bench_e2e.py: 20 turns of 25 tool calls over JSON-RPC streaming,
server and client in this process) runs in three arms, interleaved:

- ``off``: nothing traced;
- ``live``: :class:`A2AProgressInstrumentor` on, both sides exporting OTLP/HTTP to the parent's
  receiver (the ``e2e_loopback`` figure is ``live`` against ``off``);
- ``sdk``: a2a-sdk's own tracing on (its ``trace_class`` spans on the request handler, event
  queue and consumer, to a TracerProvider set as the global one, exporting OTLP/HTTP to the
  same receiver through the same BatchSpanProcessor) and our instrumentor off;
- ``floor``: the OpenTelemetry SDK floor (floor.py): our instrumentor off, the same spans,
  events and metrics made in place by the agent and the caller loop with no protocol work,
  exported the same way: ``e2e_sdk_floor``, what an ideal bridge would cost here.

``vs_a2a_sdk_tracing`` is our added CPU time over a2a-sdk's: ``(live - off) / (sdk - off)``,
medians. a2a-sdk decides at import whether its tracing exists (``OTEL_INSTRUMENTATION_A2A_SDK_
ENABLED``): run.py imports this module with it on, and the ``off`` and ``live`` arms swap its
tracer module for an absorbing no-op, exactly what a2a-sdk itself installs when it is off.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

from a2a.utils import telemetry as sdk_telemetry
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

from agent import UPDATES_PER_TOOL, tracer_provider
from bench_e2e import WARMUP_TURNS, Bench, endpoint
from benchlib import Figure, interleave_arms, ratio_figure

SDK_SERVICE = "bench-a2a-sdk"


class _Absorb:
    """What a2a-sdk's telemetry module uses when its tracing is off: absorbs every call."""

    def __call__(self, *args: Any, **kwargs: Any) -> _Absorb:
        return self

    def __enter__(self) -> _Absorb:
        return self

    def __exit__(self, *args: object) -> None:
        return None

    def __getattr__(self, name: str) -> _Absorb:
        return self


_ABSORB = _Absorb()


def sdk_tracing(on: bool) -> None:
    """Switch a2a-sdk's own tracing on or off (a2a must have been imported with it on)."""
    sdk_telemetry.trace = trace if on else _ABSORB  # type: ignore[assignment]


def run(quick: bool) -> list[Figure]:
    if not isinstance(sdk_telemetry.trace, type(trace)):
        raise RuntimeError("a2a-sdk was imported with its tracing off: run this through run.py")
    bench = Bench(turns=4 if quick else 20, tools=25, concurrent=1)
    sdk_provider = tracer_provider(
        SDK_SERVICE, OTLPSpanExporter(endpoint=f"{endpoint()}/v1/traces")
    )
    trace.set_tracer_provider(sdk_provider)
    sdk_tracing(False)

    def sdk_arm(warmup: tuple[int, int] | None = None) -> Callable[[], float]:
        sdk = bench.arm("sdk", None, warmup=warmup)

        def run() -> float:
            sdk_tracing(True)
            try:
                return sdk()
            finally:
                sdk_tracing(False)
                sdk_provider.force_flush()  # the spans still queued, outside the clock

        return run

    def arms(warmup: tuple[int, int] | None = None) -> dict[str, Callable[[], float]]:
        return {
            "live": bench.arm("live", endpoint(), warmup=warmup),
            "off": bench.arm("off", None, warmup=warmup),
            "sdk": sdk_arm(warmup),
            "floor": bench.floor_arm("floor", endpoint(), warmup=warmup),
        }

    try:
        samples = interleave_arms(arms(), reps=3 if quick else 5, warmup=arms(WARMUP_TURNS))
    finally:
        bench.close()
        sdk_provider.shutdown()
    workload = (
        f"{bench.updates} working updates per repetition ({bench.turns} turns x {bench.tools} "
        f"tool calls x {UPDATES_PER_TOOL}) over JSON-RPC streaming"
    )
    loopback = bench.figure(
        "e2e_loopback",
        (samples["live"], samples["off"]),
        ("live", "off"),
        target=1.10,
        notes=f"{workload}, instrumented (OTLP/HTTP to a live receiver) vs uninstrumented",
    )
    floor = bench.figure(
        "e2e_sdk_floor",
        (samples["floor"], samples["off"]),
        ("floor", "off"),
        target=1.10,
        notes=(
            f"{workload}: the OpenTelemetry SDK floor (the same spans, events and metrics made "
            "in place with no protocol work, OTLP/HTTP to the same receiver) vs uninstrumented; "
            "e2e_loopback's target beside it"
        ),
    )
    off, ours, theirs = (statistics.median(samples[arm]) for arm in ("off", "live", "sdk"))
    versus = ratio_figure(
        "vs_a2a_sdk_tracing",
        ([ours - off], [theirs - off]),
        unit="s",
        scale=1.0,
        target=0.2,
        notes=(
            f"{workload}; added process CPU time of our instrumentor (both sides, OTLP/HTTP) "
            f"over a2a-sdk's own tracing (OTLP/HTTP, same processor), medians of "
            f"{len(samples['off'])}: ours x{ours / off:.3f}, a2a-sdk x{theirs / off:.3f} of "
            f"untraced ({off:.3f} s)"
        ),
        extra={
            "updates": bench.updates,
            "ours_ratio": round(ours / off, 4),
            "a2a_sdk_ratio": round(theirs / off, 4),
            "arm_samples": {arm: [round(s, 4) for s in values] for arm, values in samples.items()},
            "expect_spans": loopback.extra["expect_spans"],
        },
    )
    versus.extra.pop("samples")
    versus.extra.pop("reps")
    return [loopback, versus, floor]
