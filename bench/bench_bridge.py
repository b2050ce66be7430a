"""bridge_inprocess: 10,000 working updates through the callee proxy and the caller wrapper.

A real :class:`DefaultRequestHandler` runs the benchmark agent (agent.py) and a real
``BaseClient`` streams each turn through an in-process transport, so no network or encoding
blurs the figure: 100 turns of 25 tool calls, 4 working updates each. The instrumented arm has
:class:`A2AProgressInstrumentor` on (both sides: executor proxy, queue proxy, caller stream
wrapper, trace context) with a BatchSpanProcessor into an InMemorySpanExporter and an SDK meter
provider; the baseline arm has it off. Both run in this one process, alternating: the
instrumentor is switched on and off between repetitions, and each repetition builds its handler
and client afresh, so the off arm has no proxy at all (a handler built while instrumentation is
on keeps its executor proxy). The time is this process's CPU time (all threads, so the span
processor's export thread counts) for the turns; the spans still queued at the end are flushed
after the clock stops (less than one export batch) and every span is checked.
"""

from __future__ import annotations

import asyncio

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from a2a_progress.otel import A2AProgressInstrumentor
from agent import (
    UPDATES_PER_TOOL,
    ScriptedAgent,
    cpu_and_wall,
    in_process_client,
    run_turn,
    tracer_provider,
)
from benchlib import Figure, interleave, ratio_figure


def run(quick: bool) -> Figure:
    turns, tools = (20, 25) if quick else (100, 25)
    updates = turns * tools * UPDATES_PER_TOOL
    agent = ScriptedAgent()
    exporter = InMemorySpanExporter()
    provider = tracer_provider("bench-inprocess", exporter)
    meters = MeterProvider(metric_readers=[InMemoryMetricReader()])
    instrumentor = A2AProgressInstrumentor()
    runner = asyncio.Runner()
    walls: dict[str, list[float]] = {"on": [], "off": []}

    async def turns_through_client() -> None:
        client, handler = in_process_client(agent)
        try:
            for _ in range(turns):
                result = await run_turn(client, tools)
                if not result.completed:
                    raise AssertionError(f"turn did not complete: {result}")
        finally:
            await handler.aclose()

    def instrumented() -> float:
        instrumentor.instrument(tracer_provider=provider, meter_provider=meters)
        try:
            cpu, wall = cpu_and_wall(lambda: runner.run(turns_through_client()))
        finally:
            instrumentor.uninstrument()
        provider.force_flush()
        _check_spans(exporter, turns, tools)
        walls["on"].append(wall)
        return cpu

    def plain() -> float:
        cpu, wall = cpu_and_wall(lambda: runner.run(turns_through_client()))
        walls["off"].append(wall)
        return cpu

    try:
        samples = interleave(instrumented, plain, reps=5 if quick else 7, warmup=1)
    finally:
        runner.close()
        provider.shutdown()
    wall_on, wall_off = (sorted(w[1:])[len(w[1:]) // 2] for w in (walls["on"], walls["off"]))
    return ratio_figure(
        "bridge_inprocess",
        samples,
        unit="s",
        scale=1.0,
        target=1.15,
        notes=(
            f"{updates} working updates per repetition ({turns} turns x {tools} tool calls x "
            f"{UPDATES_PER_TOOL}), process CPU time; every span checked (2 turn spans and "
            f"{tools} tool spans per side and turn, all ended done); wall-clock medians "
            f"{wall_on:.3f} s vs {wall_off:.3f} s (ratio {wall_on / wall_off:.3f})"
        ),
        extra={"wall_ratio": round(wall_on / wall_off, 4), "spans_checked": True},
    )


def _check_spans(exporter: InMemorySpanExporter, turns: int, tools: int) -> None:
    spans = exporter.get_finished_spans()
    exporter.clear()
    tool_spans = [s for s in spans if s.name.startswith("execute_tool")]
    turn_spans = [s for s in spans if not s.name.startswith("execute_tool")]
    reasons = {s.attributes.get("a2a.progress.end_reason") for s in tool_spans}
    if len(turn_spans) != 2 * turns or len(tool_spans) != 2 * turns * tools or reasons != {"done"}:
        raise AssertionError(
            f"expected {2 * turns} turn and {2 * turns * tools} tool spans, all done; got "
            f"{len(turn_spans)} and {len(tool_spans)}, end reasons {reasons}"
        )
