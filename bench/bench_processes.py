"""e2e_processes, e2e_processes_vs_a2a_sdk: the callee in its own process, as deployed.

The other end-to-end figures run both agents in one process and time its CPU: they charge every
cycle the bridge spends. What a user waits for is the wall clock of a turn with each agent in its
own process (on this machine, two cores). Each repetition starts the callee
(callee_process.py) in a fresh process, streams one turn of 375 tool calls (1,500 working
updates) to it over JSON-RPC from this process after a one-tool warm-up turn, and stops it.
Four arms, interleaved (the order reverses every repetition), 7 repetitions (5 from the full
run of 2 December 2026 until the paired statistic below) after a warm-up round of one 25-call
turn per arm (a whole repetition until December 2026). The next repetition's callee is started
as soon as the current one's timed turn has ended, so its start-up overlaps the teardown,
never a timed turn:

- ``off``: nothing traced on either side;
- ``ours``: :class:`A2AProgressInstrumentor` on both sides, spans and metrics over OTLP/HTTP to
  the parent's receiver (its spans are checked there, as for ``e2e_loopback``);
- ``floor``: the OpenTelemetry SDK floor (floor.py) on both sides instead of the instrumentor:
  the same spans, events and metrics made with no protocol work, exported the same way;
- ``sdk``: a2a-sdk's own tracing on both sides, spans over OTLP/HTTP to the same receiver.

``e2e_processes`` is the wall clock of ``ours`` against ``off``, the median over repetitions
of ``ours / off`` of the same repetition (target: the floor's ratio, paired the same way,
+ 0.03; until 2 December 2026 the ratio of the two medians, see below).
``e2e_processes_vs_a2a_sdk`` is issue 21's acceptance check as it is worded:
what ours adds to the turn's wall clock over what a2a-sdk's own tracing adds (target 0.15); the
same ratio of both processes' CPU time (user + system) is recorded beside it
(``cpu_added_vs_a2a_sdk``), and each process's CPU apart (``cpu_split``: the event loop's
thread, where the agent, server or client and the instrumentor run, and the other threads,
where spans and metrics are exported), so that where an arm's cost lies can be read again.

What an arm adds is **paired by repetition**: the median over repetitions of (the arm's sample
- ``off``'s sample of the same repetition), not the difference of the two medians. The four
arms of a repetition run back to back (~15 s); the machine's speed drifts over minutes with the
other tenants' load, and the same arm's CPU time moved by ±20% between repetitions of one
quiet run, which the difference of medians passed straight into a ratio of two small
differences (a2a-sdk's added CPU read 1,296 and 642 µs per update in two quiet runs). The
paired difference cancels what the repetition's arms share; the median of the differences,
not their mean, keeps one disturbed arm from moving the figure. On 8 repetitions at a load of
8-11, the CPU ratio of any 5 of them spread by a standard deviation of 0.12 paired against 0.35
as differences of medians (profile_processes.py --json; bench/README.md has the figures). It
favours no arm: every traced arm is paired with the same ``off`` samples, and the ratio is of
medians of ``ours - off`` and ``sdk - off`` alike. As in bench_sdk_tracing.py, run.py imports
a2a with a2a-sdk's tracing on for this worker, and the ``off`` and ``ours`` arms swap its
tracer for a no-op.
"""

from __future__ import annotations

import gc
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from a2a.types import AgentCard
from google.protobuf import json_format
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

from a2a_progress.otel.metrics import BridgeMetrics
from a2a_progress.serving import create_client
from agent import UPDATES_PER_TOOL, TurnResult, TurnRunner, run_turn, tracer_provider
from bench_e2e import BRIDGE_SERVICE, FLOOR_SERVICE, Bench, Telemetry, endpoint, expect_spans
from bench_sdk_tracing import sdk_tracing
from benchlib import BENCH_DIR, Figure, arm_order, cpu_by_thread, gc_collections, ratio_figure
from floor import floor_turn
from probe import PROBE_ENV, Probe, valgrind_prefix

TOOLS_PER_TURN = 375
WARMUP_TOOLS = 25
"""Tool calls of each arm's turn in the warm-up round (a whole 375-call repetition until
December 2026): it warms this process (imports, the first export of each kind); every callee
is a fresh process, warmed by its one-tool connection turn as in every repetition."""


class _Callee:
    """The callee process of one repetition, started at once; :attr:`card` waits until it
    serves."""

    def __init__(self, arm: str) -> None:
        self.arm = arm
        command = [sys.executable, str(BENCH_DIR / "callee_process.py"), arm]
        if os.environ.get(PROBE_ENV) == "callgrind":
            command = valgrind_prefix(Path(os.environ["BENCH_PROBE_DIR"]), arm) + command
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=BENCH_DIR,
        )
        if self.process.stdin is None or self.process.stdout is None:
            raise RuntimeError("the callee process has no pipes")
        self._stdin, self._stdout = self.process.stdin, self.process.stdout
        self._card: AgentCard | None = None

    @property
    def card(self) -> AgentCard:
        """The callee's agent card, printed once it serves (its imports and set-up done)."""
        if self._card is None:
            self._card = json_format.Parse(self._stdout.readline(), AgentCard())
        return self._card

    def ask(self, command: str) -> str:
        """Send one command line (callee_process.py's protocol); its one-line answer."""
        self._stdin.write(command + "\n")
        self._stdin.flush()
        return self._stdout.readline()

    def cpu(self) -> CpuReading:
        reading = json.loads(self.ask("cpu"))
        return CpuReading(reading["process"], reading["threads"], reading["collections"])

    def stop(self) -> None:
        self._stdin.close()
        if self.process.wait(timeout=60) != 0:
            raise RuntimeError(f"the callee process exited with {self.process.returncode}")


@dataclass
class CpuReading:
    """A process's CPU seconds so far: all of it, and by live thread (benchlib.cpu_by_thread);
    and the garbage collector's collections so far, by generation."""

    process: float
    threads: dict[str, float]
    collections: list[int]

    @classmethod
    def here(cls) -> CpuReading:
        return cls(time.process_time(), cpu_by_thread(), gc_collections())

    def since(self, start: CpuReading) -> dict[str, float]:
        """CPU seconds from ``start`` to this reading: ``process``, ``main`` (the event loop's
        thread: the agent, the server or client, the instrumentor) and ``threads`` (the rest:
        span and metric export, the executor threads)."""
        main = self.threads["MainThread"] - start.threads["MainThread"]
        total = self.process - start.process
        # Full collections walk the whole heap (a2a-sdk, OpenTelemetry and their modules): an
        # arm that allocates more sets them off more often, and pays for a heap it did not make.
        full = self.collections[2] - start.collections[2]
        return {"process": total, "main": main, "threads": total - main, "gc_full": full}


@dataclass
class Sample:
    """One repetition of one arm: the turn's wall clock, and CPU seconds of each process."""

    wall: float
    caller: dict[str, float] = field(default_factory=dict)
    callee: dict[str, float] = field(default_factory=dict)

    @property
    def cpu(self) -> float:
        """Both processes' CPU seconds."""
        return self.caller["process"] + self.callee["process"]


ARMS = ("ours", "off", "floor", "sdk")


class Deployed:
    """The arms of one worker: each :meth:`sample` is one repetition (a fresh callee process,
    one warm-up turn of one tool call, then ``turns`` turns of ``tools`` tool calls)."""

    _next: _Callee | None = None
    """The next repetition's callee, started as the previous one's timed turns ended."""

    def __init__(self, turns: int = 1, tools: int = TOOLS_PER_TURN) -> None:
        self.bench = Bench(turns=turns, tools=tools, concurrent=1)  # span checks
        self._sdk_provider = tracer_provider(
            "bench-a2a-sdk-caller", OTLPSpanExporter(endpoint=f"{endpoint()}/v1/traces")
        )
        trace.set_tracer_provider(self._sdk_provider)
        sdk_tracing(False)

    def close(self) -> None:
        if self._next is not None:
            self._next.stop()
        self.bench.close()
        self._sdk_provider.shutdown()

    def sample(
        self,
        name: str,
        probe: Path | None = None,
        *,
        tools: int | None = None,
        then: str | None = None,
    ) -> Sample:
        """One repetition of arm ``name``; with ``probe``, probe.py's probe runs in both
        processes over the timed turns, its output labelled ``<probe>/<arm>-caller`` and
        ``<probe>/<arm>-callee``. ``tools``: tool calls of its turns instead of the worker's
        (a shorter warm-up run). ``then``: the arm of the next repetition, whose callee is
        started as soon as this one's timed turns end: its start-up (imports, ~2 s of CPU)
        runs during this repetition's teardown (flushing the telemetry, stopping the callee),
        never during timed turns, and it waits for a command before its own."""
        bench, telemetry = self.bench, None
        turn: TurnRunner = run_turn
        if name == "ours":
            telemetry = Telemetry(endpoint())
            bench.instrumentor.instrument(**telemetry.kwargs())
        elif name == "floor":
            telemetry = Telemetry(endpoint(), service=FLOOR_SERVICE)
            turn = floor_caller(telemetry)
        sdk_tracing(name == "sdk")
        callee, self._next = self._next, None
        if callee is None or callee.arm != name:
            if callee is not None:
                callee.stop()
            callee = _Callee(name)
        size = bench.turns, tools or bench.tools

        def timed_turns_ended() -> None:
            if then is not None:
                self._next = _Callee(then)

        try:
            sample = bench.runner.run(
                _timed(callee, size, turn, name, probe=probe, ended=timed_turns_ended)
            )
        finally:
            callee.stop()
            sdk_tracing(False)
            if name == "ours":
                bench.instrumentor.uninstrument()
            if telemetry is not None:
                telemetry.shutdown(dead=False)
            self._sdk_provider.force_flush()
        if telemetry is not None:
            bench.ran(name, *size)
        return sample


def run(quick: bool) -> list[Figure]:
    turns = 1  # the issue's check: one 1,500-update turn
    deployed = Deployed(turns)
    bench = deployed.bench
    cpus: dict[str, list[float]] = {}
    splits: dict[str, list[Sample]] = {}

    samples: dict[str, list[float]] = {}
    # A warm-up round (each arm once, a turn of WARMUP_TOOLS), then the repetitions, the arms'
    # order reversed every other one (benchlib.interleave_arms' order).
    order = [(name, True) for name in ARMS] + [
        (name, False) for rep in range(3 if quick else 7) for name in arm_order(ARMS, rep)
    ]
    try:
        for index, (name, warmup) in enumerate(order):
            then = order[index + 1][0] if index + 1 < len(order) else None
            gc.collect()
            sample = deployed.sample(name, tools=WARMUP_TOOLS if warmup else None, then=then)
            if not warmup:
                samples.setdefault(name, []).append(sample.wall)
                cpus.setdefault(name, []).append(sample.cpu)
                splits.setdefault(name, []).append(sample)
    finally:
        deployed.close()
    wall = {name: statistics.median(values) for name, values in samples.items()}
    cpu = {name: statistics.median(values) for name, values in cpus.items()}
    updates = turns * TOOLS_PER_TURN * UPDATES_PER_TOOL
    # What each adds to the untraced turn, paired by repetition (see the module docstring);
    # ours against a2a-sdk's is the deployed comparison a user makes, the acceptance check.
    added, cpu_added = paired_added(samples), paired_added(cpus)
    # Each arm's ratio to the untraced turn, paired the same way: the median over repetitions
    # of arm_i / off_i. The machine's speed moved ~2x between repetitions of one quiet run
    # (off's wall clock 2.59-5.13 s) while wall / CPU stayed within 3% inside each arm: a ratio
    # of two medians taken from different repetitions read the floor and ours "faster than
    # untraced" (x0.865, x0.902; paired: x1.045, x1.032).
    ratios, cpu_ratios = paired_ratio(samples), paired_ratio(cpus)
    workload = (
        f"{turns} turn(s) of {TOOLS_PER_TURN} tool calls ({updates} working updates) per "
        "repetition over JSON-RPC streaming, the callee in a process of its own, both sides "
        f"exporting OTLP/HTTP, {len(samples['off'])} interleaved repetitions"
    )
    measured = (
        f"medians, wall clock: none {wall['off']:.3f} s, ours {wall['ours']:.3f} s "
        f"(x{ratios['ours']:.3f}), the SDK floor (floor.py) {wall['floor']:.3f} s "
        f"(x{ratios['floor']:.3f}), a2a-sdk's own tracing {wall['sdk']:.3f} s "
        f"(x{ratios['sdk']:.3f}); CPU time of both processes: none "
        f"{cpu['off']:.3f} s, ours {cpu['ours']:.3f} s (x{cpu_ratios['ours']:.3f}), the "
        f"floor {cpu['floor']:.3f} s (x{cpu_ratios['floor']:.3f}), a2a-sdk "
        f"{cpu['sdk']:.3f} s (x{cpu_ratios['sdk']:.3f}); each x the median over repetitions "
        "of the arm's time over the untraced arm's of the same repetition"
    )
    extra = {
        "updates": updates,
        "floor_wall_ratio": round(ratios["floor"], 4),
        "a2a_sdk_wall_ratio": round(ratios["sdk"], 4),
        "added_vs_a2a_sdk": round(added["ours"] / added["sdk"], 4),
        "cpu_ratio": round(cpu_ratios["ours"], 4),
        "floor_cpu_ratio": round(cpu_ratios["floor"], 4),
        "a2a_sdk_cpu_ratio": round(cpu_ratios["sdk"], 4),
        "wall_ratios": {name: round(value, 4) for name, value in ratios.items()},
        "cpu_ratios": {name: round(value, 4) for name, value in cpu_ratios.items()},
        "cpu_added_vs_a2a_sdk": round(cpu_added["ours"] / cpu_added["sdk"], 4),
        "wall_medians": {name: round(value, 4) for name, value in wall.items()},
        "cpu_medians": {name: round(value, 4) for name, value in cpu.items()},
        "cpu_samples": {name: [round(v, 4) for v in values] for name, values in cpus.items()},
        "wall_added": {name: round(value, 4) for name, value in added.items()},
        "cpu_added": {name: round(value, 4) for name, value in cpu_added.items()},
        "cpu_split": cpu_split(splits),
    }
    processes = ratio_figure(
        "e2e_processes",
        (samples["ours"], samples["off"]),
        unit="s",
        scale=1.0,
        paired=True,
        # Ours may add at most 0.03 of the untraced turn above what the SDK floor adds.
        target=round(ratios["floor"] + 0.03, 4),
        notes=f"{workload}; ours vs neither traced, {measured}",
        extra={
            **extra,
            "expect_spans": expect_spans(BRIDGE_SERVICE, bench.traces.get("ours", {})),
        },
    )
    acceptance = ratio_figure(
        "e2e_processes_vs_a2a_sdk",
        ([added["ours"]], [added["sdk"]]),
        unit="s",
        scale=1.0,
        target=0.15,
        notes=(
            f"issue 21's acceptance check: {workload}; what our instrumentor (defaults: sampled, "
            "content capture off) adds to the wall clock of the turn over what a2a-sdk's own "
            "tracing adds, each the median over repetitions of the arm minus the untraced arm "
            f"of the same repetition: {added['ours']:+.3f} s vs {added['sdk']:+.3f} s; in CPU "
            f"time of both processes {cpu_added['ours']:+.3f} s vs {cpu_added['sdk']:+.3f} s "
            f"({cpu_added['ours'] / cpu_added['sdk']:.3f}); {measured}"
        ),
        extra=extra,
    )
    acceptance.extra.pop("reps")
    acceptance.extra["samples"] = {
        name: [round(value, 4) for value in values] for name, values in samples.items()
    }
    return [processes, acceptance]


def paired_added(samples: dict[str, list[float]]) -> dict[str, float]:
    """What each arm adds to ``off``: the median over repetitions of the arm's sample minus
    ``off``'s sample of the same repetition."""
    base = samples["off"]
    return {
        name: statistics.median(a - b for a, b in zip(values, base, strict=True))
        for name, values in samples.items()
        if name != "off"
    }


def paired_ratio(samples: dict[str, list[float]]) -> dict[str, float]:
    """Each arm's ratio to ``off``: the median over repetitions of the arm's sample divided by
    ``off``'s sample of the same repetition."""
    base = samples["off"]
    return {
        name: statistics.median(a / b for a, b in zip(values, base, strict=True))
        for name, values in samples.items()
        if name != "off"
    }


def cpu_split(splits: dict[str, list[Sample]]) -> dict[str, dict[str, dict[str, float]]]:
    """Per arm and process (caller, callee), the median CPU seconds of the whole process, of
    its event loop's thread (``main``) and of its other threads (``threads``: span and metric
    export), and its full garbage collections (``gc_full``); for the traced arms what each
    adds to ``off`` (``added_*``, paired by repetition as :func:`paired_added`)."""
    found: dict[str, dict[str, dict[str, float]]] = {}
    for process in ("caller", "callee"):
        for key in ("process", "main", "threads", "gc_full"):
            series = {
                name: [getattr(sample, process)[key] for sample in taken]
                for name, taken in splits.items()
            }
            for name, values in series.items():
                found.setdefault(name, {}).setdefault(process, {})[key] = round(
                    statistics.median(values), 4
                )
            for name, value in paired_added(series).items():
                found[name][process][f"added_{key}"] = round(value, 4)
    return found


def floor_caller(telemetry: Telemetry) -> TurnRunner:
    """The caller's side of the SDK floor, exporting through ``telemetry``."""
    tracer = telemetry.caller.get_tracer("a2a_progress.bench.floor")
    metrics = BridgeMetrics(telemetry.meters.get_meter("a2a_progress.bench.floor"))

    def turn(client: Any, tools: int) -> Awaitable[TurnResult]:
        return floor_turn(client, tools, tracer, metrics, content=False)

    return turn


async def _timed(
    callee: _Callee,
    size: tuple[int, int],
    turn: TurnRunner,
    name: str,
    *,
    probe: Path | None,
    ended: Callable[[], None],
) -> Sample:
    """Wall and CPU (per process and thread) of ``size`` (turns, tool calls each), after a
    one-tool warm-up; ``ended()`` is called as soon as the clocks have been read."""
    client: Any = create_client(callee.card)
    here = Probe()
    try:
        await turn(client, 1)  # connections set up, outside the clock
        if probe is not None:
            callee.ask("probe start")
            here.start()
        callee_cpu, cpu, wall = callee.cpu(), CpuReading.here(), time.perf_counter()
        for _ in range(size[0]):
            result = await turn(client, size[1])
            if not result.completed:
                raise AssertionError(f"turn did not complete: {result}")
        wall = time.perf_counter() - wall
        sample = Sample(wall, CpuReading.here().since(cpu), callee.cpu().since(callee_cpu))
        if probe is not None:
            here.stop(probe / f"{name}-caller")
            callee.ask(f"probe stop {probe / f'{name}-callee'}")
        ended()
        return sample
    finally:
        await client.close()
