"""e2e_processes, e2e_processes_vs_a2a_sdk: the callee in its own process, as deployed.

The other end-to-end figures run both agents in one process and time its CPU: they charge every
cycle the bridge spends. What a user waits for is the wall clock of a turn with each agent in its
own process (on this machine, two cores). This process is the caller of every arm; one callee
process (callee_process.py), started before anything is timed, serves every arm in turn. Both
switch the arm on and off between slots as the in-process workers do (the instrumentor on and
off, a2a-sdk's tracer swapped for its no-op, the floor's agent and caller loop), and the callee
serves each slot on a fresh server. Each slot streams one turn of 375 tool calls (1,500 working
updates) over JSON-RPC, after a one-tool connection turn, and then has the callee switch its arm
off and export what its telemetry still holds, outside the clock (so nothing of one slot is
exported during the next). Four arms, after a warm-up round of one 25-call turn per arm:

- ``off``: nothing traced on either side;
- ``ours``: :class:`A2AProgressInstrumentor` on both sides, spans and metrics over OTLP/HTTP to
  the parent's receiver (its spans are checked there, as for ``e2e_loopback``);
- ``floor``: the OpenTelemetry SDK floor (floor.py) on both sides instead of the instrumentor:
  the same spans, events and metrics made with no protocol work, exported the same way;
- ``sdk``: a2a-sdk's own tracing on both sides, spans over OTLP/HTTP to the same receiver.

Why one callee process for every arm: on 2-3 December 2026 each arm had a callee process of its
own for the whole run (before that, a fresh one per repetition), and whatever makes one process
run the same code a few % faster than another (memory layout, hash seed, placement on the
cores) stayed with its arm for the run, a bias the blocks could not pair away. Now the arms
differ in their code only, in both processes.

The slots run in **mirrored blocks** (benchlib.mirrored_blocks: off, ours, floor, sdk, sdk,
floor, ours, off), 12 of them: each arm's two turns in a block are centred on the block's
middle like every other arm's, and its value there is the faster of the two (block_values:
other tenants only slow a turn down); ours sits between the untraced arm and the floor, the
comparisons the targets make.

One rule decides both targets: the statistic is computed per block (pairing each arm with the
untraced turn of its own block), its **median over blocks** decides ``passed``, and its 95%
order-statistic interval over blocks gives the verdict (``met`` / ``missed`` / ``unresolved``,
benchlib.Interval), both recorded and printed: on this shared machine one block's value moves
by a tenth and more, and a median that misses a target by less than its interval is not a miss
the run has shown. ``e2e_processes`` is the wall clock of ``ours`` against ``off`` (its ratio:
the median over blocks of ``ours / off``); its target asks the median over blocks of ``(ours -
floor) / off`` (``intervals.wall.ours_minus_floor``) to be at most 0.03, written on the ratio's
scale as the floor's paired ratio + 0.03 (:func:`figures`). ``e2e_processes_vs_a2a_sdk`` is
issue 21's acceptance check as it is worded: what ours adds to the turn's wall clock over what
a2a-sdk's own tracing adds, the median over blocks of ``(ours - off) / (sdk - off)`` (target
0.15). Each is recorded in CPU time of both processes too (user + system, all threads). Each
process's CPU is recorded apart (``cpu_split``: the event loop's thread, where the agent,
server or client and the instrumentor run, and the other threads, where spans and metrics are
exported). As in bench_sdk_tracing.py, a2a is imported with a2a-sdk's tracing on in both
processes (run.py, callee_process.py), and every arm but ``sdk`` swaps its tracer for a no-op.
"""

from __future__ import annotations

import gc
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Sequence
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
from benchlib import (
    BENCH_DIR,
    Figure,
    cpu_by_thread,
    gc_collections,
    median_interval,
    mirrored_blocks,
    ratio_figure,
)
from floor import floor_turn
from probe import PROBE_ENV, Probe, valgrind_prefix

TOOLS_PER_TURN = 375
BLOCKS = 12
"""Mirrored blocks (benchlib.mirrored_blocks) of the full run, 24 turns of each arm. The 95%
interval of a median over blocks is a pair of order statistics (benchlib.median_interval): 6
blocks, the fewest that give one, give their min and max (96.9%); 12 give the 3rd and 10th
(96.1%), about 0.6 of that width on normal-like block values (the expected spread of the 3rd
to the 10th of 12 draws, 1.6 sd, against 2.5 sd for the min to max of 6), for ~15 s a block
(~1.5 min more a run than 6). 13 and 14 blocks give no narrower interval than 12 (the 3rd
order statistic still), 15 the next (4th to 12th, 1.4 sd), ~45 s more."""
ABOVE_FLOOR = 0.03
"""e2e_processes' target: what ours may add above the SDK floor, a share of the untraced turn."""
ACCEPTANCE = 0.15
"""e2e_processes_vs_a2a_sdk's target: what ours may add, a share of what a2a-sdk's tracing adds."""
WARMUP_TOOLS = 25
"""Tool calls of each arm's turn in the warm-up round (a whole 375-call repetition until
December 2026): it warms this process and the callee (imports, the first export of each
kind, the interpreter's specialised code) before the first block."""


class _Callee:
    """The callee process (callee_process.py), started at once, serving one arm at a time."""

    def __init__(self) -> None:
        command = [sys.executable, str(BENCH_DIR / "callee_process.py")]
        if os.environ.get(PROBE_ENV) == "callgrind":
            command = valgrind_prefix(Path(os.environ["BENCH_PROBE_DIR"]), "callee") + command
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
        self._ready = False

    def send(self, command: str) -> None:
        """Send one command line (callee_process.py's protocol); :meth:`answer` reads its
        answer."""
        if not self._ready:  # its imports and set-up done
            if self._stdout.readline().strip() != "ready":
                raise RuntimeError("the callee process did not start")
            self._ready = True
        self._stdin.write(command + "\n")
        self._stdin.flush()

    def answer(self) -> str:
        """The one-line answer to the command sent last."""
        answer = self._stdout.readline()
        if not answer:
            raise RuntimeError("the callee process ended")
        return answer

    def ask(self, command: str) -> str:
        """Send one command line; its one-line answer."""
        self.send(command)
        return self.answer()

    def serve(self, arm: str) -> AgentCard:
        """Switch ``arm`` on in the callee and serve it on a fresh server: its agent card."""
        return json_format.Parse(self.ask(f"serve {arm}"), AgentCard())

    def stopped(self) -> None:
        """Wait for the callee to answer ``stop`` (sent by :meth:`Deployed.sample`): it has
        stopped serving, switched the arm off and exported what its telemetry still held."""
        if self.answer().strip() != "ok":
            raise RuntimeError("the callee process did not stop its arm")

    def cpu(self) -> CpuReading:
        reading = json.loads(self.ask("cpu"))
        return CpuReading(reading["process"], reading["threads"], reading["collections"])

    def close(self) -> None:
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
    """One slot of one arm: the turn's wall clock, and CPU seconds of each process."""

    wall: float
    caller: dict[str, float] = field(default_factory=dict)
    callee: dict[str, float] = field(default_factory=dict)

    @property
    def cpu(self) -> float:
        """Both processes' CPU seconds."""
        return self.caller["process"] + self.callee["process"]


ARMS = ("off", "ours", "floor", "sdk")
"""In a block's order (benchlib.mirrored_blocks): ours between the untraced arm and the floor,
the two it is compared with."""


class Deployed:
    """The arms of one worker: this process is every arm's caller and one callee process
    (callee_process.py) serves every arm's turns, both switched between slots; each
    :meth:`sample` is one slot (the arm switched on both sides, a fresh server in the callee,
    a client, one warm-up turn of one tool call, then ``turns`` timed turns of ``tools`` tool
    calls, then the arm switched off again and its telemetry flushed, outside the clock)."""

    def __init__(self, turns: int = 1, tools: int = TOOLS_PER_TURN) -> None:
        self.bench = Bench(turns=turns, tools=tools, concurrent=1)  # span checks
        self._sdk_provider = tracer_provider(
            "bench-a2a-sdk-caller", OTLPSpanExporter(endpoint=f"{endpoint()}/v1/traces")
        )
        trace.set_tracer_provider(self._sdk_provider)
        sdk_tracing(False)
        # Started before anything is timed: its start-up (imports, ~2-3 s of CPU) overlaps
        # nothing that is measured.
        self._callee = _Callee()

    def close(self) -> None:
        self._callee.close()
        self.bench.close()
        self._sdk_provider.shutdown()

    def sample(self, name: str, probe: Path | None = None, *, tools: int | None = None) -> Sample:
        """One slot of arm ``name``; with ``probe``, probe.py's probe runs in both processes
        over the timed turns, its output labelled ``<probe>/<arm>-caller`` and
        ``<probe>/<arm>-callee``. ``tools``: tool calls of its turns instead of the worker's
        (a shorter warm-up run)."""
        bench, telemetry = self.bench, None
        turn: TurnRunner = run_turn
        if name == "ours":
            telemetry = Telemetry(endpoint())
            bench.instrumentor.instrument(**telemetry.kwargs())
        elif name == "floor":
            telemetry = Telemetry(endpoint(), service=FLOOR_SERVICE)
            turn = floor_caller(telemetry)
        sdk_tracing(name == "sdk")
        size = bench.turns, tools or bench.tools
        # What this process exports the arm's telemetry through (none: off).
        providers: list[Any] = []
        if telemetry is not None:
            providers = [telemetry.caller, telemetry.meters]
        elif name == "sdk":
            providers = [self._sdk_provider]
        try:
            card = self._callee.serve(name)
            sample = bench.runner.run(
                _timed(self._callee, card, size, turn, name, probe=probe, providers=providers)
            )
            # Outside the clock, the callee switches its arm off while this process does.
            self._callee.send("stop")
        finally:
            sdk_tracing(False)
            if name == "ours":
                bench.instrumentor.uninstrument()
            if telemetry is not None:
                telemetry.shutdown(dead=False)
            self._sdk_provider.force_flush()
        self._callee.stopped()
        if telemetry is not None:
            bench.ran(name, *size)
        return sample


def run(quick: bool) -> list[Figure]:
    turns = 1  # the issue's check: one 1,500-update turn
    deployed = Deployed(turns)
    bench = deployed.bench
    # Each arm's slots by block: a warm-up round first (each arm once, a turn of WARMUP_TOOLS;
    # not samples), then the mirrored blocks.
    taken: dict[str, list[list[Sample]]] = {name: [] for name in ARMS}
    slots: list[list[Any]] = []
    try:
        for name in ARMS:
            deployed.sample(name, tools=WARMUP_TOOLS)
        for block, name in mirrored_blocks(ARMS, 2 if quick else BLOCKS):
            gc.collect()
            sample = deployed.sample(name)
            if len(taken[name]) <= block:
                taken[name].append([])
            taken[name][block].append(sample)
            slots.append([block, name, round(sample.wall, 4), round(sample.cpu, 4)])
    finally:
        deployed.close()
    samples, cpus, splits = block_values(taken)
    return figures(samples, cpus, splits, slots, bench.traces.get("ours", {}))


def block_values(
    taken: dict[str, list[list[Sample]]],
) -> tuple[dict[str, list[float]], dict[str, list[float]], dict[str, list[Sample]]]:
    """Each arm's value in each block: the faster of its two turns there, by wall clock and by
    CPU seconds of both processes apart; and for the CPU split, the turn of the lesser CPU.

    Other tenants only ever slow a turn down (a preempted or starved turn, caches thrashed by
    a neighbour), never speed it up, so the faster of two turns of the same code minutes apart
    is the better reading of its cost at that block's speed; every arm gets the same two
    turns. The slots of three runs of the worker at a load of 4-11, read both ways: the median
    over blocks of ours - floor spread by 0.032 (CPU) and 0.078 (wall) between the runs as the
    faster turn, 0.061 and 0.138 as the mean of the two."""
    walls = {name: [min(s.wall for s in pair) for pair in blocks] for name, blocks in taken.items()}
    cpus = {name: [min(s.cpu for s in pair) for pair in blocks] for name, blocks in taken.items()}
    splits = {
        name: [min(pair, key=lambda sample: sample.cpu) for pair in blocks]
        for name, blocks in taken.items()
    }
    return walls, cpus, splits


def figures(
    samples: dict[str, list[float]],
    cpus: dict[str, list[float]],
    splits: dict[str, list[Sample]],
    slots: list[list[Any]],
    traces: dict[int, int],
) -> list[Figure]:
    """The two figures from each arm's per-block wall clock (``samples``) and CPU seconds of
    both processes (``cpus``), per turn."""
    updates = TOOLS_PER_TURN * UPDATES_PER_TOOL
    wall = {name: statistics.median(values) for name, values in samples.items()}
    cpu = {name: statistics.median(values) for name, values in cpus.items()}
    # What each adds to the untraced turn, paired by block (see the module docstring).
    added, cpu_added = paired_added(samples), paired_added(cpus)
    # Each arm's ratio to the untraced turn, paired the same way: the median over blocks of
    # arm_b / off_b. The machine's speed moved ~2x between repetitions of one quiet run
    # (off's wall clock 2.59-5.13 s) while wall / CPU stayed within 3% inside each arm: a ratio
    # of two medians taken from different repetitions read the floor and ours "faster than
    # untraced" (x0.865, x0.902; paired: x1.045, x1.032).
    ratios, cpu_ratios = paired_ratio(samples), paired_ratio(cpus)
    intervals = {"wall": intervals_of(samples), "cpu": intervals_of(cpus)}
    blocks = len(samples["off"])
    workload = (
        f"1 turn of {TOOLS_PER_TURN} tool calls ({updates} working updates) per slot over "
        "JSON-RPC streaming, each arm's callee in a process of its own, both sides exporting "
        f"OTLP/HTTP, {blocks} mirrored blocks of one slot per arm each way"
    )
    verdicts = (
        f"95% intervals (order statistics over the {blocks} blocks), wall clock: ours - floor "
        f"{_interval_text(intervals['wall']['ours_minus_floor'])}, acceptance "
        f"{_interval_text(intervals['wall']['added_vs_a2a_sdk'])}; CPU: ours - floor "
        f"{_interval_text(intervals['cpu']['ours_minus_floor'])}, acceptance "
        f"{_interval_text(intervals['cpu']['added_vs_a2a_sdk'])}"
    )
    measured = (
        f"medians, wall clock: none {wall['off']:.3f} s, ours {wall['ours']:.3f} s "
        f"(x{ratios['ours']:.3f}), the SDK floor (floor.py) {wall['floor']:.3f} s "
        f"(x{ratios['floor']:.3f}), a2a-sdk's own tracing {wall['sdk']:.3f} s "
        f"(x{ratios['sdk']:.3f}); CPU time of both processes: none "
        f"{cpu['off']:.3f} s, ours {cpu['ours']:.3f} s (x{cpu_ratios['ours']:.3f}), the "
        f"floor {cpu['floor']:.3f} s (x{cpu_ratios['floor']:.3f}), a2a-sdk "
        f"{cpu['sdk']:.3f} s (x{cpu_ratios['sdk']:.3f}); each x the median over blocks "
        f"of the arm's time over the untraced arm's of the same block; {verdicts}"
    )
    acceptance_wall = intervals["wall"]["added_vs_a2a_sdk"]
    extra = {
        "updates": updates,
        "floor_wall_ratio": round(ratios["floor"], 4),
        "a2a_sdk_wall_ratio": round(ratios["sdk"], 4),
        "added_vs_a2a_sdk": acceptance_wall["median"],
        "cpu_ratio": round(cpu_ratios["ours"], 4),
        "floor_cpu_ratio": round(cpu_ratios["floor"], 4),
        "a2a_sdk_cpu_ratio": round(cpu_ratios["sdk"], 4),
        "wall_ratios": {name: round(value, 4) for name, value in ratios.items()},
        "cpu_ratios": {name: round(value, 4) for name, value in cpu_ratios.items()},
        "cpu_added_vs_a2a_sdk": intervals["cpu"]["added_vs_a2a_sdk"]["median"],
        "intervals": intervals,
        "wall_medians": {name: round(value, 4) for name, value in wall.items()},
        "cpu_medians": {name: round(value, 4) for name, value in cpu.items()},
        "cpu_samples": {name: [round(v, 4) for v in values] for name, values in cpus.items()},
        "wall_added": {name: round(value, 4) for name, value in added.items()},
        "cpu_added": {name: round(value, 4) for name, value in cpu_added.items()},
        "cpu_split": cpu_split(splits),
        # Every timed slot in the order run: [block, arm, wall s, CPU s of both processes].
        "slots": slots,
    }
    # Ours may add at most ABOVE_FLOOR of the untraced turn above what the SDK floor adds, asked
    # of the same statistic whose interval is given: the median over blocks of (ours - floor) /
    # none. The target is on the ratio's scale, the floor's ratio as paired with ours (ours'
    # ratio less that median), so that ratio <= target exactly when that median <= ABOVE_FLOOR;
    # the difference of the two arms' median ratios (floor_wall_ratio) is another statistic,
    # which a block's drift can move apart from it.
    ours_ratio = round(ratios["ours"], 4)
    paired_floor = round(ours_ratio - intervals["wall"]["ours_minus_floor"]["median"], 4)
    processes = ratio_figure(
        "e2e_processes",
        (samples["ours"], samples["off"]),
        unit="s",
        scale=1.0,
        paired=True,
        target=round(paired_floor + ABOVE_FLOOR, 4),
        notes=f"{workload}; ours vs neither traced, {measured}",
        extra={
            **extra,
            "floor_wall_ratio_paired": paired_floor,
            "expect_spans": expect_spans(BRIDGE_SERVICE, traces),
        },
    )
    acceptance = Figure(
        name="e2e_processes_vs_a2a_sdk",
        value=round(added["ours"], 4),
        unit="s",
        baseline=round(added["sdk"], 4),
        ratio=acceptance_wall["median"],
        target=ACCEPTANCE,
        notes=(
            f"issue 21's acceptance check: {workload}; what our instrumentor (defaults: sampled, "
            "content capture off) adds to the wall clock of the turn over what a2a-sdk's own "
            "tracing adds, the median over blocks of (ours - none) / (a2a-sdk - none) of the "
            f"same block; added, medians of the paired differences: {added['ours']:+.3f} s vs "
            f"{added['sdk']:+.3f} s; in CPU time of both processes {cpu_added['ours']:+.3f} s "
            f"vs {cpu_added['sdk']:+.3f} s; {measured}"
        ),
        extra={
            **extra,
            "samples": {
                name: [round(value, 4) for value in values] for name, values in samples.items()
            },
        },
    )
    return [processes, acceptance]


def intervals_of(series: dict[str, list[float]]) -> dict[str, dict[str, Any]]:
    """Per-block figures with their intervals (benchlib.Interval): each traced arm's ratio to
    ``off``; ``ours_minus_floor``, (ours - floor) / off, held to 0.03 (e2e_processes' target);
    ``added_vs_a2a_sdk``, (ours - off) / (sdk - off), held to 0.15 (the acceptance check), and
    the floor's the same way (``floor_added_vs_a2a_sdk``)."""
    off = series["off"]
    found = {
        name: median_interval([a / b for a, b in zip(values, off, strict=True)]).as_json()
        for name, values in series.items()
        if name != "off"
    }
    ours, floor, sdk = series["ours"], series["floor"], series["sdk"]
    found["ours_minus_floor"] = median_interval(
        [(a - f) / b for a, f, b in zip(ours, floor, off, strict=True)]
    ).as_json(ABOVE_FLOOR)
    found["added_vs_a2a_sdk"] = median_interval(
        [(a - b) / (t - b) for a, t, b in zip(ours, sdk, off, strict=True)]
    ).as_json(ACCEPTANCE)
    # The floor's share the same way (no target: the users' table shows it beside ours').
    found["floor_added_vs_a2a_sdk"] = median_interval(
        [(f - b) / (t - b) for f, t, b in zip(floor, sdk, off, strict=True)]
    ).as_json()
    return found


def _interval_text(found: dict[str, Any]) -> str:
    low, high = found["ci"]
    return f"{found['median']:.3f} [{low:.3f}, {high:.3f}] {found['verdict']}"


def paired_added(samples: dict[str, list[float]]) -> dict[str, float]:
    """What each arm adds to ``off``: the median over blocks (repetitions) of the arm's sample
    minus ``off``'s sample of the same block."""
    base = samples["off"]
    return {
        name: statistics.median(a - b for a, b in zip(values, base, strict=True))
        for name, values in samples.items()
        if name != "off"
    }


def paired_ratio(samples: dict[str, list[float]]) -> dict[str, float]:
    """Each arm's ratio to ``off``: the median over blocks (repetitions) of the arm's sample
    divided by ``off``'s sample of the same block."""
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
    adds to ``off`` (``added_*``, paired by block as :func:`paired_added`)."""
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
    card: AgentCard,
    size: tuple[int, int],
    turn: TurnRunner,
    name: str,
    *,
    probe: Path | None,
    providers: Sequence[Any] = (),
) -> Sample:
    """Wall and CPU (per process and thread) of ``size`` (turns, tool calls each), after a
    one-tool warm-up. With ``probe``, both processes export all the telemetry of the timed
    turns before their probes stop (``providers``: this process's tracer and meter providers
    of the arm; the callee flushes its own). A span is exported when its batch processor's
    timer or batch size says: without the flush, how much of the turn's export fell inside the
    count depended on how fast the machine ran (valgrind's slowness and the machine's load),
    and the spans that end last (the turn spans, with their events) were never counted."""
    # Under callgrind (profile_processes.py) both processes run many times slower: at a load
    # of 7 a turn's first response took longer than the client's default 30 s read timeout.
    slow = os.environ.get(PROBE_ENV) == "callgrind"
    client: Any = create_client(card, timeout=None if slow else 30.0)
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
            for provider in providers:
                provider.force_flush()
            if callee.ask("flush").strip() != "ok":
                raise RuntimeError("the callee process did not flush")
            here.stop(probe / f"{name}-caller")
            callee.ask(f"probe stop {probe / f'{name}-callee'}")
        return sample
    finally:
        await client.close()
