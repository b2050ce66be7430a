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
spans a side, so one batch is triggered during the last turn; 50 turns of 12 (concurrency) queue
652 a side in ~7 s: one batch and the timer. e2e_dead_collector's 10 turns queue 262 in ~2 s,
which on that schedule would export nothing inside the clock: both of its arms export spans and
metrics every 500 ms instead, and every export request (the refused arm's retries included) is
counted, so its result records how many of them ended while each repetition was timed. The
figure is the process's
CPU time (user + system, all threads: the exporter threads count); wall-clock medians are
reported beside it. The parent process then checks every span at the receiver.
"""

from __future__ import annotations

import asyncio
import os
import socket
import statistics
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

import requests
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

DEAD_COLLECTOR_EXPORT_MS = 500
"""e2e_dead_collector's export timer (span processors) and interval (metric reader), both arms:
several exports, or refused attempts and the exporter's retries, inside each repetition's clock."""

# Services are "<prefix>-caller" and "<prefix>-callee": the bridge's arms, and the SDK floor's.
BRIDGE_SERVICE = "bench"
FLOOR_SERVICE = "bench-floor"


def refused_endpoint() -> str:
    """An OTLP endpoint on loopback where nothing listens: every connection is refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


class Posts:
    """The HTTP requests the exporters made, counted as each one ends, and how many of them
    failed (a refused connection raises; an error status): every attempt, the exporter's own
    retries included."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._made = 0
        self._failed = 0

    def ended(self, *, failed: bool) -> None:
        with self._lock:
            self._made += 1
            self._failed += failed

    def snapshot(self) -> tuple[int, int]:
        """(made, failed) so far."""
        with self._lock:
            return self._made, self._failed


class CountingSession(requests.Session):
    """The session of one exporter (the public ``session`` argument; a session is not shared
    between exporter threads), counting every request it makes into ``posts``."""

    def __init__(self, posts: Posts) -> None:
        super().__init__()
        self.posts = posts

    def request(self, *args: Any, **kwargs: Any) -> requests.Response:
        try:
            response = super().request(*args, **kwargs)
        except Exception:
            self.posts.ended(failed=True)
            raise
        self.posts.ended(failed=not response.ok)
        return response


class Telemetry:
    """Both sides' providers for one instrumented repetition, exporting to ``endpoint``.

    ``export_delay_ms``: the span processors' export timer and the metric reader's interval
    (the SDK's defaults, 5 s and 60 s, when None)."""

    def __init__(
        self, endpoint: str, service: str = BRIDGE_SERVICE, *, export_delay_ms: int | None = None
    ) -> None:
        self.posts = Posts()
        self.span_exporters = [
            OTLPSpanExporter(endpoint=f"{endpoint}/v1/traces", session=CountingSession(self.posts)),
            OTLPSpanExporter(endpoint=f"{endpoint}/v1/traces", session=CountingSession(self.posts)),
        ]
        self.caller = tracer_provider(
            f"{service}-caller", self.span_exporters[0], schedule_delay_millis=export_delay_ms
        )
        self.callee = tracer_provider(
            f"{service}-callee", self.span_exporters[1], schedule_delay_millis=export_delay_ms
        )
        self.metric_exporter = OTLPMetricExporter(
            endpoint=f"{endpoint}/v1/metrics", session=CountingSession(self.posts)
        )
        self.meters = MeterProvider(
            metric_readers=[
                PeriodicExportingMetricReader(
                    self.metric_exporter, export_interval_millis=export_delay_ms
                )
            ]
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
    """Runs repetitions of ``turns`` turns of ``tools`` tool calls, ``concurrent`` at a time;
    instrumented arms export on the SDK's default schedule, or every ``export_delay_ms``."""

    def __init__(
        self, turns: int, tools: int, concurrent: int, *, export_delay_ms: int | None = None
    ) -> None:
        self.turns, self.tools, self.concurrent = turns, tools, concurrent
        self.export_delay_ms = export_delay_ms
        self.agent = ScriptedAgent()
        self.instrumentor = A2AProgressInstrumentor()
        self.runner = asyncio.Runner()
        # The timed repetitions' wall clocks, by arm label (warm-ups are not samples).
        self.walls: dict[str, list[float]] = {}
        # The traces each arm label exported, by tool calls per trace (warm-ups and connection
        # turns included): the parent checks every one at the receiver.
        self.traces: dict[str, dict[int, int]] = {}
        # The export requests (made, failed) of each timed repetition's exporters that ended
        # while its clock ran, by arm label.
        self.posts: dict[str, list[tuple[int, int]]] = {}
        # The event loop thread's CPU seconds (the agents' own work, without the exporter
        # threads) of each timed repetition, by arm label.
        self.loop_cpu: dict[str, list[float]] = {}

    @property
    def updates(self) -> int:
        return self.turns * self.tools * UPDATES_PER_TOOL

    async def _serve_and_run(
        self,
        size: tuple[int, int],
        agent: ScriptedAgent | None = None,
        turn: TurnRunner = run_turn,
        posts: Posts | None = None,
    ) -> tuple[float, float, float, tuple[int, int]]:
        async with serve_agent(agent or self.agent, grpc_port=None) as served:
            client = create_client(served.card_for("jsonrpc"))
            try:
                await turn(client, 1)  # connection set up, outside the clock
                return await self._timed_turns(client, turn, size, posts or Posts())
            finally:
                await client.close()

    async def _timed_turns(
        self, client: Any, turn: TurnRunner, size: tuple[int, int], posts: Posts
    ) -> tuple[float, float, float, tuple[int, int]]:
        """(process CPU s, wall s, this thread's CPU s, (made, failed) export requests ended)
        of the timed turns."""
        turns, tools = size
        concurrent = min(self.concurrent, turns)
        results: list[TurnResult] = []
        before = posts.snapshot()
        cpu, wall, loop = time.process_time(), time.perf_counter(), time.thread_time()
        for _ in range(turns // concurrent):
            batch = (turn(client, tools) for _ in range(concurrent))
            results += await asyncio.gather(*batch)
        cpu, wall, loop = (
            time.process_time() - cpu,
            time.perf_counter() - wall,
            time.thread_time() - loop,
        )
        after = posts.snapshot()
        if len(results) != turns or not all(result.completed for result in results):
            raise AssertionError("a turn did not complete")
        return cpu, wall, loop, (after[0] - before[0], after[1] - before[1])

    def ran(self, label: str, turns: int, tools: int) -> None:
        """Record a repetition of arm ``label`` that exported its spans: its connection turn
        of one tool call and ``turns`` turns of ``tools``."""
        traces = self.traces.setdefault(label, {})
        traces[1] = traces.get(1, 0) + 1
        traces[tools] = traces.get(tools, 0) + turns

    def _sized(self, warmup: tuple[int, int] | None) -> tuple[int, int]:
        return warmup or (self.turns, self.tools)

    def _sample(
        self,
        label: str,
        warmup: tuple[int, int] | None,
        sample: tuple[float, float, float, tuple[int, int]],
    ) -> float:
        """Record a repetition's (CPU, wall, loop CPU, export requests); its CPU seconds."""
        cpu, wall, loop, posts = sample
        if warmup is None:
            self.walls.setdefault(label, []).append(wall)
            self.loop_cpu.setdefault(label, []).append(loop)
            self.posts.setdefault(label, []).append(posts)
        return cpu

    def arm(
        self, label: str, endpoint: str | None, *, warmup: tuple[int, int] | None = None
    ) -> Callable[[], float]:
        """One arm: instrumented and exporting to ``endpoint``, or (None) uninstrumented.
        ``warmup``: (turns, tools) of this arm's shorter warm-up run instead, not a sample."""
        size = self._sized(warmup)

        def run() -> float:
            telemetry = None
            if endpoint is not None:
                telemetry = Telemetry(endpoint, export_delay_ms=self.export_delay_ms)
                self.instrumentor.instrument(**telemetry.kwargs())
            try:
                posts = telemetry.posts if telemetry is not None else None
                sample = self.runner.run(self._serve_and_run(size, posts=posts))
            finally:
                if telemetry is not None:
                    self.instrumentor.uninstrument()
                    telemetry.shutdown(dead=label == "dead")
            if label == "live":
                self.ran(label, *size)
            return self._sample(label, warmup, sample)

        return run

    def floor_arm(
        self, label: str, endpoint: str, *, warmup: tuple[int, int] | None = None
    ) -> Callable[[], float]:
        """The OpenTelemetry SDK floor (floor.py): the instrumentor off, the same spans and
        metrics made in place by the agent and the caller loop, exported the same way."""
        size = self._sized(warmup)

        def run() -> float:
            telemetry = Telemetry(
                endpoint, service=FLOOR_SERVICE, export_delay_ms=self.export_delay_ms
            )
            metrics = BridgeMetrics(telemetry.meters.get_meter("a2a_progress.bench.floor"))
            callee = telemetry.callee.get_tracer("a2a_progress.bench.floor")
            caller = telemetry.caller.get_tracer("a2a_progress.bench.floor")
            agent = ScriptedAgent(observer=FloorObserver(callee, metrics, content=False).turn)

            def turn(client: Any, tools: int) -> Awaitable[TurnResult]:
                return floor_turn(client, tools, caller, metrics, content=False)

            try:
                sample = self.runner.run(self._serve_and_run(size, agent, turn, telemetry.posts))
            finally:
                telemetry.shutdown(dead=False)
            self.ran(label, *size)
            return self._sample(label, warmup, sample)

        return run

    def _cpu_split(self, label: str, cpu: list[float]) -> dict[str, float]:
        loop = self.loop_cpu[label]
        others = [total - own for total, own in zip(cpu, loop, strict=True)]
        return {
            "loop_thread": round(statistics.median(loop), 4),
            "other_threads": round(statistics.median(others), 4),
        }

    def median_posts(self, label: str) -> str:
        """``label``'s export requests while timed in its median repetition (by requests made):
        "N (F failed)"."""
        posts = self.posts[label]
        made, failed = statistics.median_low(posts)
        return f"{made} ({failed} failed)"

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
                # Each timed repetition's export requests that ended while its clock ran, by
                # arm: [made, failed] (a refused connection fails; the exporter retries).
                "export_requests_timed": {label: self.posts[label] for label in labels},
                # Median CPU seconds by arm of the event loop thread (the agents' own work)
                # and of the other threads (the exporters' among them).
                "cpu_split": {
                    label: self._cpu_split(label, samples[i]) for i, label in enumerate(labels)
                },
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
    # 1,000 updates a repetition (2,000 until December 2026: make bench under 10 minutes), in
    # ~2 s: on the SDK's default schedule (a 512-span batch or 5 s; metrics every 60 s) neither
    # arm exported anything while timed. Both arms export every DEAD_COLLECTOR_EXPORT_MS, so
    # the refused arm's attempts and retries fall inside its clock as the live arm's exports do.
    bench = Bench(
        turns=4 if quick else 10,
        tools=25,
        concurrent=1,
        export_delay_ms=DEAD_COLLECTOR_EXPORT_MS,
    )
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
                "arms instrumented: OTLP endpoint refusing connections vs a live receiver, "
                f"spans and metrics exported every {DEAD_COLLECTOR_EXPORT_MS} ms; export "
                f"requests while timed (median a repetition): dead {bench.median_posts('dead')}, "
                f"live {bench.median_posts('live')}"
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
