"""e2e_processes: caller and callee in separate processes, as agents are deployed; wall clock.

The other end-to-end figures run both agents in one process and time its CPU: they charge every
cycle the bridge spends. What a user waits for is the wall clock of a turn with each agent in its
own process (on this machine, two cores). Each repetition starts the callee
(callee_process.py) in a fresh process, streams turns of 375 tool calls (1,500 working updates)
to it over JSON-RPC from this process, and stops it. Three arms, interleaved:

- ``off``: nothing traced on either side;
- ``ours``: :class:`A2AProgressInstrumentor` on both sides, spans and metrics over OTLP/HTTP to
  the parent's receiver (its spans are checked there, as for ``e2e_loopback``);
- ``floor``: the OpenTelemetry SDK floor (floor.py) on both sides instead of the instrumentor:
  the same spans, events and metrics made with no protocol work, exported the same way;
- ``sdk``: a2a-sdk's own tracing on both sides, spans over OTLP/HTTP to the same receiver.

The figure is the median wall clock of ``ours`` against ``off``; both processes' CPU time and
a2a-sdk's arm are in the notes. As in bench_sdk_tracing.py, run.py imports a2a with a2a-sdk's
tracing on for this worker, and the ``off`` and ``ours`` arms swap its tracer for a no-op.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from a2a.types import AgentCard
from google.protobuf import json_format
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

from a2a_progress.otel.metrics import BridgeMetrics
from a2a_progress.serving import create_client
from agent import UPDATES_PER_TOOL, TurnResult, TurnRunner, run_turn, tracer_provider
from bench_e2e import BRIDGE_SERVICE, FLOOR_SERVICE, Bench, Telemetry, endpoint
from bench_sdk_tracing import sdk_tracing
from benchlib import BENCH_DIR, Figure, interleave_arms, ratio_figure
from floor import floor_turn

TOOLS_PER_TURN = 375


class _Callee:
    """The callee process of one repetition."""

    def __init__(self, arm: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(BENCH_DIR / "callee_process.py"), arm],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=BENCH_DIR,
        )
        if self.process.stdin is None or self.process.stdout is None:
            raise RuntimeError("the callee process has no pipes")
        self._stdin, self._stdout = self.process.stdin, self.process.stdout
        self.card = json_format.Parse(self._stdout.readline(), AgentCard())

    def cpu(self) -> float:
        self._stdin.write("cpu\n")
        self._stdin.flush()
        return float(self._stdout.readline())

    def stop(self) -> None:
        self._stdin.close()
        if self.process.wait(timeout=60) != 0:
            raise RuntimeError(f"the callee process exited with {self.process.returncode}")


def run(quick: bool) -> list[Figure]:
    turns = 1 if quick else 2
    bench = Bench(turns=turns, tools=TOOLS_PER_TURN, concurrent=1)  # span checks, walls
    sdk_provider = tracer_provider(
        "bench-a2a-sdk-caller", OTLPSpanExporter(endpoint=f"{endpoint()}/v1/traces")
    )
    trace.set_tracer_provider(sdk_provider)
    sdk_tracing(False)
    cpus: dict[str, list[float]] = {}

    def arm(name: str) -> Callable[[], float]:
        def run_arm() -> float:
            telemetry = None
            turn: TurnRunner = run_turn
            if name == "ours":
                telemetry = Telemetry(endpoint())
                bench.instrumentor.instrument(**telemetry.kwargs())
            elif name == "floor":
                telemetry = Telemetry(endpoint(), service=FLOOR_SERVICE)
                turn = floor_caller(telemetry)
            sdk_tracing(name == "sdk")
            callee = _Callee(name)
            try:
                wall, cpu = bench.runner.run(_timed(callee, turns, turn))
            finally:
                callee.stop()
                sdk_tracing(False)
                if name == "ours":
                    bench.instrumentor.uninstrument()
                if telemetry is not None:
                    telemetry.shutdown(dead=False)
                sdk_provider.force_flush()
            if telemetry is not None:
                bench.exported_reps[name] = bench.exported_reps.get(name, 0) + 1
            bench.walls.setdefault(name, []).append(wall)
            cpus.setdefault(name, []).append(cpu)
            return wall

        return run_arm

    try:
        samples = interleave_arms(
            {name: arm(name) for name in ("ours", "off", "floor", "sdk")}, reps=3 if quick else 5
        )
    finally:
        bench.close()
        sdk_provider.shutdown()
    wall = {name: statistics.median(values) for name, values in samples.items()}
    cpu = {name: statistics.median(values) for name, values in cpus.items()}
    updates = turns * TOOLS_PER_TURN * UPDATES_PER_TOOL
    # What each adds to the untraced turn's wall clock; ours against a2a-sdk's is the deployed
    # comparison a user makes.
    added = {name: wall[name] - wall["off"] for name in ("ours", "floor", "sdk")}
    figure = ratio_figure(
        "e2e_processes",
        (samples["ours"], samples["off"]),
        unit="s",
        scale=1.0,
        # Ours may add at most 0.03 of the untraced turn above what the SDK floor adds.
        target=round(wall["floor"] / wall["off"] + 0.03, 4),
        notes=(
            f"{turns} turn(s) of {TOOLS_PER_TURN} tool calls ({updates} working updates) per "
            "repetition over JSON-RPC streaming, the callee in a process of its own; wall clock "
            f"of the turns, both sides instrumented (OTLP/HTTP) vs neither: medians "
            f"{wall['ours']:.3f} s vs {wall['off']:.3f} s; the SDK floor (floor.py) "
            f"{wall['floor']:.3f} s (x{wall['floor'] / wall['off']:.3f}); a2a-sdk's own tracing "
            "on both sides "
            f"{wall['sdk']:.3f} s (x{wall['sdk'] / wall['off']:.3f}); CPU time of both "
            f"processes: ours {cpu['ours']:.3f} s, the floor {cpu['floor']:.3f} s, a2a-sdk "
            f"{cpu['sdk']:.3f} s, none {cpu['off']:.3f} s (x{cpu['ours'] / cpu['off']:.3f}, "
            f"x{cpu['floor'] / cpu['off']:.3f}, x{cpu['sdk'] / cpu['off']:.3f}); ours adds "
            f"{added['ours'] / added['sdk']:.3f} of what a2a-sdk's tracing adds to the wall clock"
        ),
        extra={
            "floor_wall_ratio": round(wall["floor"] / wall["off"], 4),
            "added_vs_a2a_sdk": round(added["ours"] / added["sdk"], 4),
            "updates": updates,
            "a2a_sdk_wall_ratio": round(wall["sdk"] / wall["off"], 4),
            "cpu_ratio": round(cpu["ours"] / cpu["off"], 4),
            "a2a_sdk_cpu_ratio": round(cpu["sdk"] / cpu["off"], 4),
            "expect_spans": {
                "service": BRIDGE_SERVICE,
                "reps": bench.exported_reps.get("ours", 0),
                "turns_per_rep": turns,
                "tools_per_trace": TOOLS_PER_TURN,
                "warmup_tools": 1,
            },
        },
    )
    return [figure]


def floor_caller(telemetry: Telemetry) -> TurnRunner:
    """The caller's side of the SDK floor, exporting through ``telemetry``."""
    tracer = telemetry.caller.get_tracer("a2a_progress.bench.floor")
    metrics = BridgeMetrics(telemetry.meters.get_meter("a2a_progress.bench.floor"))

    def turn(client: Any, tools: int) -> Awaitable[TurnResult]:
        return floor_turn(client, tools, tracer, metrics, content=False)

    return turn


async def _timed(callee: _Callee, turns: int, turn: TurnRunner) -> tuple[float, float]:
    """Wall and CPU (both processes) seconds of ``turns`` turns, after a one-tool warm-up."""
    client: Any = create_client(callee.card)
    try:
        await turn(client, 1)  # connections set up, outside the clock
        callee_cpu, cpu, wall = callee.cpu(), time.process_time(), time.perf_counter()
        for _ in range(turns):
            result = await turn(client, TOOLS_PER_TURN)
            if not result.completed:
                raise AssertionError(f"turn did not complete: {result}")
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        return wall, cpu + callee.cpu() - callee_cpu
    finally:
        await client.close()
