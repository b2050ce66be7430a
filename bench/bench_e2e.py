"""e2e_dead_collector, concurrency (e2e_loopback: bench_sdk_tracing.py): real servers, clients.

Each repetition serves the benchmark agent (agent.py) with ``a2a_progress.serving.serve_agent`` on
127.0.0.1 and streams turns over JSON-RPC 1.0 with ``create_client``; server and client share this
process and its event loop. Instrumented arms switch :class:`A2AProgressInstrumentor` on with one
TracerProvider per side (services ``bench-caller`` / ``bench-callee``), each a default
BatchSpanProcessor into an OTLP/HTTP span exporter, and an SDK meter provider exporting OTLP/HTTP
metrics, all to the receiver the parent bench process runs (``BENCH_OTLP_ENDPOINT``), so the
collector's work is not charged to the agents. Uninstrumented arms switch it off.

Arms alternate in this one process: instrumenting and uninstrumenting between repetitions is
what the instrumentor supports, each repetition starts its own server and client after the
switch (so an off arm has no executor proxy left over), and it keeps both arms on the same warm
interpreter, which separate processes would not. The clock runs while the turns run; server
start and stop, and the flush of the spans still queued at the end, are outside it. What the
exporter threads send inside the clock depends on the run's length: a BatchSpanProcessor
exports when 512 spans are queued or every 5 s. 20 turns of 25 calls (e2e_loopback) queue 522
spans a side, so one batch is triggered during the last turn; 10 turns (e2e_dead_collector)
queue 262 in ~2 s, so neither of its arms exports anything inside the clock; 50 turns of 12
(concurrency) queue 652 a side in ~7 s: one batch and the timer. The figure is the process's
CPU time (user + system, all threads: the exporter threads count); wall-clock medians are
reported beside it. The parent process then checks every span at the receiver.
"""

from __future__ import annotations

import asyncio
import os
import socket
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader

from a2a_progress.otel import A2AProgressInstrumentor
from a2a_progress.otel.metrics import BridgeMetrics
from a2a_progress.serving import create_client, serve_agent
from agent import UPDATES_PER_TOOL, ScriptedAgent, TurnResult, TurnRunner, run_turn, tracer_provider
from benchlib import Figure, interleave, ratio_figure
from floor import FloorObserver, floor_turn

ENDPOINT_ENV = "BENCH_OTLP_ENDPOINT"

WARMUP_TURNS = (2, 25)
"""(turns, tool calls) of each arm's warm-up run in the sequential workers: every code path
of a repetition, in 2 turns instead of 10 or 20 (a full repetition until December 2026)."""

# Services are "<prefix>-caller" and "<prefix>-callee": the bridge's arms, and the SDK floor's.
BRIDGE_SERVICE = "bench"
FLOOR_SERVICE = "bench-floor"


def refused_endpoint() -> str:
    """An OTLP endpoint on loopback where nothing listens: every connection is refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


class Telemetry:
    """Both sides' providers for one instrumented repetition, exporting to ``endpoint``."""

    def __init__(self, endpoint: str, service: str = BRIDGE_SERVICE) -> None:
        self.span_exporters = [
            OTLPSpanExporter(endpoint=f"{endpoint}/v1/traces"),
            OTLPSpanExporter(endpoint=f"{endpoint}/v1/traces"),
        ]
        self.caller = tracer_provider(f"{service}-caller", self.span_exporters[0])
        self.callee = tracer_provider(f"{service}-callee", self.span_exporters[1])
        self.metric_exporter = OTLPMetricExporter(endpoint=f"{endpoint}/v1/metrics")
        self.meters = MeterProvider(
            metric_readers=[PeriodicExportingMetricReader(self.metric_exporter)]
        )

    def kwargs(self) -> dict[str, Any]:
        return {
            "caller_tracer_provider": self.caller,
            "callee_tracer_provider": self.callee,
            "meter_provider": self.meters,
            # Content capture stays off, the default: what a deployment runs (the in-process
            # figures measure it on and off).
        }

    def shutdown(self, *, dead: bool) -> None:
        if dead:
            # Nothing can be delivered: stop the exporters first, so the final flush gives up
            # at once instead of retrying for the default 10 s export timeout.
            for exporter in self.span_exporters:
                exporter.shutdown()
            self.metric_exporter.shutdown()
        for provider in (self.caller, self.callee, self.meters):
            provider.shutdown()


class Bench:
    """Runs repetitions of ``turns`` turns of ``tools`` tool calls, ``concurrent`` at a time."""

    def __init__(self, turns: int, tools: int, concurrent: int) -> None:
        self.turns, self.tools, self.concurrent = turns, tools, concurrent
        self.agent = ScriptedAgent()
        self.instrumentor = A2AProgressInstrumentor()
        self.runner = asyncio.Runner()
        # The timed repetitions' wall clocks, by arm label (warm-ups are not samples).
        self.walls: dict[str, list[float]] = {}
        # The traces each arm label exported, by tool calls per trace (warm-ups and connection
        # turns included): the parent checks every one at the receiver.
        self.traces: dict[str, dict[int, int]] = {}

    @property
    def updates(self) -> int:
        return self.turns * self.tools * UPDATES_PER_TOOL

    async def _serve_and_run(
        self, size: tuple[int, int], agent: ScriptedAgent | None = None, turn: TurnRunner = run_turn
    ) -> tuple[float, float]:
        async with serve_agent(agent or self.agent, grpc_port=None) as served:
            client = create_client(served.card_for("jsonrpc"))
            try:
                await turn(client, 1)  # connection set up, outside the clock
                return await self._timed_turns(client, turn, size)
            finally:
                await client.close()

    async def _timed_turns(
        self, client: Any, turn: TurnRunner, size: tuple[int, int]
    ) -> tuple[float, float]:
        turns, tools = size
        concurrent = min(self.concurrent, turns)
        results: list[TurnResult] = []
        cpu, wall = time.process_time(), time.perf_counter()
        for _ in range(turns // concurrent):
            batch = (turn(client, tools) for _ in range(concurrent))
            results += await asyncio.gather(*batch)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        if len(results) != turns or not all(result.completed for result in results):
            raise AssertionError("a turn did not complete")
        return cpu, wall

    def ran(self, label: str, turns: int, tools: int) -> None:
        """Record a repetition of arm ``label`` that exported its spans: its connection turn
        of one tool call and ``turns`` turns of ``tools``."""
        traces = self.traces.setdefault(label, {})
        traces[1] = traces.get(1, 0) + 1
        traces[tools] = traces.get(tools, 0) + turns

    def _sized(self, warmup: tuple[int, int] | None) -> tuple[int, int]:
        return warmup or (self.turns, self.tools)

    def arm(
        self, label: str, endpoint: str | None, *, warmup: tuple[int, int] | None = None
    ) -> Callable[[], float]:
        """One arm: instrumented and exporting to ``endpoint``, or (None) uninstrumented.
        ``warmup``: (turns, tools) of this arm's shorter warm-up run instead, not a sample."""
        size = self._sized(warmup)

        def run() -> float:
            telemetry = Telemetry(endpoint) if endpoint is not None else None
            if telemetry is not None:
                self.instrumentor.instrument(**telemetry.kwargs())
            try:
                cpu, wall = self.runner.run(self._serve_and_run(size))
            finally:
                if telemetry is not None:
                    self.instrumentor.uninstrument()
                    telemetry.shutdown(dead=label == "dead")
            if label == "live":
                self.ran(label, *size)
            if warmup is None:
                self.walls.setdefault(label, []).append(wall)
            return cpu

        return run

    def floor_arm(
        self, label: str, endpoint: str, *, warmup: tuple[int, int] | None = None
    ) -> Callable[[], float]:
        """The OpenTelemetry SDK floor (floor.py): the instrumentor off, the same spans and
        metrics made in place by the agent and the caller loop, exported the same way."""
        size = self._sized(warmup)

        def run() -> float:
            telemetry = Telemetry(endpoint, service=FLOOR_SERVICE)
            metrics = BridgeMetrics(telemetry.meters.get_meter("a2a_progress.bench.floor"))
            callee = telemetry.callee.get_tracer("a2a_progress.bench.floor")
            caller = telemetry.caller.get_tracer("a2a_progress.bench.floor")
            agent = ScriptedAgent(observer=FloorObserver(callee, metrics, content=False).turn)

            def turn(client: Any, tools: int) -> Awaitable[TurnResult]:
                return floor_turn(client, tools, caller, metrics, content=False)

            try:
                cpu, wall = self.runner.run(self._serve_and_run(size, agent, turn))
            finally:
                telemetry.shutdown(dead=False)
            self.ran(label, *size)
            if warmup is None:
                self.walls.setdefault(label, []).append(wall)
            return cpu

        return run

    def figure(
        self,
        name: str,
        samples: tuple[list[float], list[float]],
        labels: tuple[str, str],
        *,
        target: float,
        notes: str,
    ) -> Figure:
        wall_a, wall_b = (statistics.median(self.walls[label]) for label in labels)
        # The arm whose spans reached the receiver (the dead collector's live arm, not "dead").
        exported = next((label for label in labels if self.traces.get(label)), labels[0])
        return ratio_figure(
            name,
            samples,
            unit="s",
            scale=1.0,
            target=target,
            notes=(
                f"{notes}; process CPU time; wall-clock medians {wall_a:.3f} s vs "
                f"{wall_b:.3f} s (ratio {wall_a / wall_b:.3f})"
            ),
            extra={
                "wall_ratio": round(wall_a / wall_b, 4),
                # The parent checks these at the receiver (run.py).
                "expect_spans": expect_spans(
                    FLOOR_SERVICE if exported == "floor" else BRIDGE_SERVICE,
                    self.traces.get(exported, {}),
                ),
            },
        )

    def close(self) -> None:
        self.runner.close()


def expect_spans(service: str, traces: dict[int, int]) -> dict[str, Any]:
    """What the parent checks at the receiver (run.py): ``service``'s traces, by tool calls."""
    return {"service": service, "traces": {str(tools): n for tools, n in sorted(traces.items())}}


def endpoint() -> str:
    """The parent process's OTLP receiver."""
    return os.environ[ENDPOINT_ENV]


def run_dead_collector(quick: bool) -> Figure:
    # 1,000 updates a repetition (2,000 until December 2026: make bench under 10 minutes).
    bench = Bench(turns=4 if quick else 10, tools=25, concurrent=1)
    dead, live = refused_endpoint(), endpoint()
    try:
        samples = interleave(
            bench.arm("dead", dead),
            bench.arm("live", live),
            reps=3 if quick else 5,
            warmup=(
                bench.arm("dead", dead, warmup=WARMUP_TURNS),
                bench.arm("live", live, warmup=WARMUP_TURNS),
            ),
        )
        return bench.figure(
            "e2e_dead_collector",
            samples,
            ("dead", "live"),
            target=1.05,
            notes=(
                f"{bench.updates} working updates per repetition over JSON-RPC streaming, both "
                "arms instrumented: OTLP endpoint refusing connections vs a live receiver"
            ),
        )
    finally:
        bench.close()


def run_concurrency(quick: bool) -> Figure:
    bench = Bench(
        # 12 tool calls a turn (24 until December 2026): both lengths in one run, interleaved
        # (5 repetitions, load 6-8), per-repetition ratios ranged 1.15-1.53 at 24 and 1.24-1.48
        # at 12 (medians of them 1.27 and 1.30; ratios of the medians 1.35 and 1.25), the
        # untraced arm 2,660 and 2,708 us per update (bench/README.md "How long a full run
        # takes"). Still 50 turns at once, and their export: one 512-span batch and the timer.
        turns=10 if quick else 50,
        tools=8 if quick else 12,
        concurrent=10 if quick else 50,
    )
    try:
        # The warm-up: the same concurrent turns, 2 tool calls each.
        warmup = (bench.concurrent, 2)
        samples = interleave(
            bench.arm("live", endpoint()),
            bench.arm("off", None),
            reps=3 if quick else 5,
            warmup=(
                bench.arm("live", endpoint(), warmup=warmup),
                bench.arm("off", None, warmup=warmup),
            ),
        )
        return bench.figure(
            "concurrency",
            samples,
            ("live", "off"),
            target=1.15,
            notes=(
                f"{bench.concurrent} concurrent turns x {bench.tools} tool calls "
                f"({bench.updates} working updates) over JSON-RPC streaming, both sides "
                "instrumented vs uninstrumented"
            ),
        )
    finally:
        bench.close()
