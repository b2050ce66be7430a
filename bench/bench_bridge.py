"""bridge_inprocess, bridge_unsampled, bridge_content_off, bridge_content_captured: the callee
proxy and caller wrapper.

A real :class:`DefaultRequestHandler` runs the benchmark agent (agent.py) and a real
``BaseClient`` streams each turn through an in-process transport, so no network or encoding
blurs the figures: 10 turns of 25 tool calls, 4 working updates each. Seven arms run in this
one process, interleaved (the order reverses every repetition):

- ``off``: the instrumentor off, the baseline of every figure;
- ``content_off``: :class:`A2AProgressInstrumentor` on in its default configuration (both
  sides: executor proxy, queue proxy, caller stream wrapper, trace context; sampled, content
  capture off) with a BatchSpanProcessor into an InMemorySpanExporter and an SDK meter
  provider: ``bridge_inprocess`` (target 0.07 above its floor) and ``bridge_content_off``
  (0.05), from the same samples;
- ``unsampled``: the same with a ``ParentBased(ALWAYS_OFF)`` sampler, so the caller's turn is
  dropped by the root sampler and the callee's by the parent-based rule (propagated unsampled):
  ``bridge_unsampled``;
- ``content_captured``: the default with ``capture_content=True`` (the opt-in):
  ``bridge_content_captured``, informational;
- ``floor``, ``floor_unsampled``, ``floor_content``: the instrumentor off, and the OpenTelemetry
  SDK calls that write the same spans, events and metrics made in place by the agent and the
  caller loop themselves, with no protocol work at all (floor.py), sampled, unsampled, and
  sampled with content recorded (the content-captured row's floor): ``bridge_sdk_floor`` and
  ``bridge_sdk_floor_unsampled``, what an ideal bridge would cost.

The instrumentor is switched on and off between repetitions, and each repetition builds its
handler and client afresh, so the off arm has no proxy at all (a handler built while
instrumentation is on keeps its executor proxy). The time is this process's CPU time (all
threads, so the span processor's export thread counts) for the turns; the spans still queued
at the end are flushed after the clock stops (less than one export batch). Every repetition's
spans are checked (the unsampled arm must export none) and so are its metrics: every arm that
is on counts every envelope and every tool call's duration on both sides, sampled or not.
"""

from __future__ import annotations

import asyncio
import functools
import statistics
from collections.abc import Callable
from typing import Any, TypeVar

from a2a.client import BaseClient
from a2a.server.agent_execution import AgentExecutor
from a2a.server.request_handlers import DefaultRequestHandler
from opentelemetry import trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ParentBased

from a2a_progress.otel import A2AProgressInstrumentor
from a2a_progress.otel.metrics import BridgeMetrics
from agent import (
    UPDATES_PER_TOOL,
    ScriptedAgent,
    TurnRunner,
    cpu_and_wall,
    in_process_client,
    run_turn,
    tracer_provider,
)
from bench_sdk_tracing import sdk_tracing
from benchlib import BRIDGE_ROWS, Arm, Figure, Warmup, interleave_arms, ratio_figure
from floor import FloorObserver, floor_turn

T = TypeVar("T")

_CONTENT = "a2a.progress.content"


ARMS = (
    "content_off",
    "off",
    "unsampled",
    "content_captured",
    "floor",
    "floor_unsampled",
    "floor_content",
)
"""The in-process arms, in the order they run (reversed every other repetition)."""

WARMUP_TURNS = 2
"""Turns of each arm's warm-up run (a whole repetition, 20 turns, until December 2026)."""

Measure = Callable[[Callable[[], None]], T]
"""Runs the turns it is given (a thunk) and returns what it measured of them."""


class InProcessArms:
    """The in-process workload's arms, set up once: each :meth:`run` serves ``turns`` turns of
    ``tools`` tool calls through one arm and checks every span, event and metric it recorded.

    ``export_delay_ms``: the BatchSpanProcessors' schedule delay. The CPU figures keep the
    SDK's default (5 s, as deployed); the instruction counts (bench_ir.py) make it longer than
    any run, so spans are exported only when a full batch of 512 is queued, at the same points
    in every run, never on a timer that fires wherever valgrind's slowdown puts it.
    """

    def __init__(
        self,
        tools: int,
        *,
        export_delay_ms: float | None = None,
        text_scale: float = 1.0,
        sdk_exporter: InMemorySpanExporter | None = None,
    ) -> None:
        self.tools = tools
        # The ``sdk`` arm (a2a-sdk's own tracing, a2a imported with it on: bench_ir.py): its
        # spans go to the global TracerProvider, set here once, exporting to ``sdk_exporter``.
        self._sdk_exporter = sdk_exporter
        self._sdk_provider = None
        if sdk_exporter is not None:
            sdk_tracing(False)
            self._sdk_provider = tracer_provider(
                "bench-a2a-sdk", sdk_exporter, schedule_delay_millis=export_delay_ms
            )
            trace.set_tracer_provider(self._sdk_provider)
        self._text_scale = text_scale
        self._agent = ScriptedAgent(scale=text_scale)
        self._unredacted = ScriptedAgent(scale=text_scale, redactor=None)
        self._exporter = InMemorySpanExporter()
        self._provider = tracer_provider(
            "bench-inprocess", self._exporter, schedule_delay_millis=export_delay_ms
        )
        self._dropped = InMemorySpanExporter()
        self._unsampled = TracerProvider(
            resource=Resource.create({"service.name": "bench-unsampled"}),
            sampler=ParentBased(ALWAYS_OFF),
        )
        self._unsampled.add_span_processor(
            BatchSpanProcessor(self._dropped, schedule_delay_millis=export_delay_ms)
        )
        self._instrumentor = A2AProgressInstrumentor()
        self._runner = asyncio.Runner()

    def close(self) -> None:
        self._runner.close()
        self._provider.shutdown()
        self._unsampled.shutdown()

    async def _serve(self, client: BaseClient, turn: TurnRunner, turns: int) -> None:
        for _ in range(turns):
            result = await turn(client, self.tools)
            if not result.completed:
                raise AssertionError(f"turn did not complete: {result}")

    def run(self, name: str, turns: int, measure: Measure[T], *, warmup: int = 0) -> T:
        """Serve ``turns`` turns through arm ``name``; what ``measure`` made of running them.

        A fresh handler and client serve ``warmup`` turns first, then the measured ones
        (building them is outside ``measure``). The instrumentor is switched on
        (``content_off``, ``unsampled``, ``content_captured``) before the handler and client
        are built and off after; the floor arms make the SDK calls themselves (floor.py,
        recording content only for ``floor_content``); ``off_unredacted`` is ``off`` with the
        emitter sending its texts unmasked; ``sdk`` is ``off`` with a2a-sdk's own tracing on.
        Checks run after ``measure`` returns.
        """
        reader = InMemoryMetricReader()
        meters = MeterProvider(metric_readers=[reader])
        served: AgentExecutor = self._unredacted if name == "off_unredacted" else self._agent
        turn: TurnRunner = run_turn
        instrumented = name in ("content_captured", "unsampled", "content_off")
        provider = self._unsampled if "unsampled" in name else self._provider
        if name.startswith("floor"):
            tracer = provider.get_tracer("a2a_progress.bench.floor")
            metrics = BridgeMetrics(meters.get_meter("a2a_progress.bench.floor"))
            content = name == "floor_content"
            served = ScriptedAgent(
                observer=FloorObserver(tracer, metrics, content=content).turn,
                scale=self._text_scale,
            )
            turn = functools.partial(floor_turn, tracer=tracer, metrics=metrics, content=content)
        elif instrumented:
            options: dict[str, Any] = {"meter_provider": meters, "tracer_provider": provider}
            # Off is the default; said here so that an environment variable cannot change it.
            options["capture_content"] = name == "content_captured"
            self._instrumentor.instrument(**options)
        sdk = self._sdk_exporter is not None
        if sdk:
            sdk_tracing(name == "sdk")
        try:
            client, handler = self._runner.run(_client(served))
            try:
                if warmup:
                    self._runner.run(self._serve(client, turn, warmup))
                measured = measure(lambda: self._runner.run(self._serve(client, turn, turns)))
            finally:
                self._runner.run(handler.aclose())
        finally:
            if sdk:
                sdk_tracing(False)
            if instrumented:
                self._instrumentor.uninstrument()
        turns += warmup
        if name == "sdk":
            if self._sdk_provider is None or self._sdk_exporter is None:
                raise ValueError("the sdk arm needs InProcessArms(sdk_exporter=...)")
            self._sdk_provider.force_flush()
            if not self._sdk_exporter.get_finished_spans():
                raise AssertionError("a2a-sdk's own tracing exported no span")
            self._sdk_exporter.clear()
        elif not name.startswith("off"):
            provider.force_flush()
            if "unsampled" in name:
                if self._dropped.get_finished_spans():
                    raise AssertionError(f"the {name} arm exported spans")
            else:
                content = name in ("content_captured", "floor_content")
                _check_spans(self._exporter, turns, self.tools, content=content)
            _check_metrics(reader, turns, self.tools)
        meters.shutdown()
        return measured


async def _client(served: AgentExecutor) -> tuple[BaseClient, DefaultRequestHandler]:
    """in_process_client(), built inside the arms' event loop."""
    return in_process_client(served)


def run(quick: bool) -> list[Figure]:
    # 1,000 updates a repetition (6,000 until the emitter's redaction made the untraced agent
    # ~2x slower per update, 2,000 until December 2026): the instruction counts (bench_ir.py)
    # are the primary in-process figures, and these CPU ratios spread with the machine's
    # drift, not the length. 20 and 10 turns in one run, interleaved, at a load of 6-7: every
    # arm's per-repetition ratios spread as much or less at 10 (content_off 0.46 vs 0.75,
    # unsampled 0.50 vs 0.54, floor 0.32 vs 0.50), medians within that spread (1.45 vs 1.56,
    # 1.38 vs 1.35, 1.21 vs 1.25; bench/README.md "Time").
    turns, tools = (8, 25) if quick else (10, 25)
    updates = turns * tools * UPDATES_PER_TOOL
    arms = InProcessArms(tools)
    walls: dict[str, list[float]] = {}

    def arm(name: str) -> Arm:
        def run_arm() -> float:
            cpu, wall = arms.run(name, turns, cpu_and_wall)
            walls.setdefault(name, []).append(wall)
            return cpu

        return run_arm

    def warm(name: str) -> Warmup:
        # Each arm's warm-up: WARMUP_TURNS of the same turns, checked as the timed ones are.
        return lambda: arms.run(name, WARMUP_TURNS, cpu_and_wall)

    try:
        samples = interleave_arms(
            {name: arm(name) for name in ARMS},
            reps=5,
            warmup={name: warm(name) for name in ARMS},
        )
    finally:
        arms.close()

    def wall(name: str) -> float:
        timed = sorted(walls[name])
        return timed[len(timed) // 2]

    workload = (
        f"{updates} working updates per repetition ({turns} turns x {tools} tool calls x "
        f"{UPDATES_PER_TOOL}), process CPU time"
    )
    metrics_checked = (
        "metrics checked: every envelope and every tool call's duration counted on both sides"
    )

    def ratio(arm_name: str) -> float:
        return statistics.median(samples[arm_name]) / statistics.median(samples["off"])

    def figure(name: str, arm_name: str, floor: str | None, what: str) -> Figure:
        """A figure of ``arm_name``; a bridge's (``floor`` given) is targeted at that floor's
        ratio plus its BRIDGE_ROWS allowance; a floor's own target is its ratio
        (informational)."""
        wall_ratio = wall(arm_name) / wall("off")
        extra: dict[str, Any] = {
            "wall_ratio": round(wall_ratio, 4),
            "spans_checked": True,
            "updates": updates,
        }
        target = ratio(arm_name)
        if floor is not None:
            target = ratio(floor) + BRIDGE_ROWS[name.removeprefix("bridge_")][2]
            extra["floor_ratio"] = round(ratio(floor), 4)
            extra["above_floor"] = round(ratio(arm_name) - ratio(floor), 4)
        return ratio_figure(
            name,
            (samples[arm_name], samples["off"]),
            unit="s",
            scale=1.0,
            target=round(target, 4),
            notes=(
                f"{workload}; {what}; {metrics_checked}; wall-clock medians "
                f"{wall(arm_name):.3f} s vs {wall('off'):.3f} s (ratio {wall_ratio:.3f})"
            ),
            extra=extra,
        )

    checked = (
        f"every span checked (2 turn spans and the callee's {tools} tool spans per turn, all "
        "ended done)"
    )
    what = {
        "inprocess": f"the instrumentor's defaults (sampled, capture_content=False); {checked}, "
        "and no content attribute on any event",
        "unsampled": "ParentBased(ALWAYS_OFF) sampler: the caller's turns dropped at the root, "
        "the callee's by the propagated unsampled parent; checked: no span exported",
        "content_off": "capture_content=False: the same arm as bridge_inprocess, held to 0.05 "
        "above its floor",
        "content_captured": "capture_content=True (opt-in; informational): every text recorded, "
        f"so redacted by the caller, on top of the defaults; {checked}, each event with content; "
        "its floor records the same content",
    }
    bridges = [
        figure(f"bridge_{row}", arm_name, floor, what[row])
        for row, (arm_name, floor, _) in BRIDGE_ROWS.items()
    ]
    return [
        *bridges,
        figure(
            "bridge_sdk_floor",
            "floor",
            None,
            "the OpenTelemetry SDK floor: instrumentor off, the same spans, events and metrics "
            "made in place by the agent and the caller loop, which know the script (no envelope "
            "read, ordered or redacted), content not recorded; checked as for bridge_inprocess",
        ),
        figure(
            "bridge_sdk_floor_unsampled",
            "floor_unsampled",
            None,
            "the SDK floor with the ParentBased(ALWAYS_OFF) sampler: the same calls, the spans "
            "dropped, the metrics recorded",
        ),
    ]


def _check_spans(exporter: InMemorySpanExporter, turns: int, tools: int, *, content: bool) -> None:
    spans = exporter.get_finished_spans()
    exporter.clear()
    tool_spans = [s for s in spans if s.name.startswith("execute_tool")]
    turn_spans = [s for s in spans if not s.name.startswith("execute_tool")]
    reasons = {s.attributes.get("a2a.progress.end_reason") for s in tool_spans}
    # The callee records each tool call; its caller, told so, makes no span of it.
    if len(turn_spans) != 2 * turns or len(tool_spans) != turns * tools or reasons != {"done"}:
        raise AssertionError(
            f"expected {2 * turns} turn and {turns * tools} tool spans, all done; got "
            f"{len(turn_spans)} and {len(tool_spans)}, end reasons {reasons}"
        )
    events = [event for span in spans for event in span.events]
    # Per tool call: the thinking before it and the text inside it, on the callee's turn span;
    # the caller, told that span records them (tfrs.turn), writes neither.
    if len(events) != 2 * turns * tools:
        raise AssertionError(f"{len(events)} span events, expected {2 * turns * tools}")
    with_content = sum(_CONTENT in (event.attributes or {}) for event in events)
    if with_content != (len(events) if content else 0):
        raise AssertionError(f"{with_content} of {len(events)} events carry content")


def _check_metrics(reader: InMemoryMetricReader, turns: int, tools: int) -> None:
    """Both sides counted every envelope (accepted) and every tool call's duration."""
    data = reader.get_metrics_data()
    found: dict[tuple[str, str], float] = {}
    for resource in data.resource_metrics if data is not None else ():
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                for point in metric.data.data_points:
                    attributes = point.attributes or {}
                    key = (metric.name, str(attributes.get("a2a.progress.observer")))
                    if metric.name == "a2a.progress.envelopes":
                        if attributes.get("a2a.progress.outcome") == "accepted":
                            found[key] = found.get(key, 0) + point.value
                    elif metric.name == "gen_ai.execute_tool.duration":
                        found[key] = found.get(key, 0) + point.count
    # Both sides count the envelopes; each tool call's duration is recorded once, by the callee
    # that ran it (the caller mirrors a call the callee announced, uncounted).
    wanted = {
        ("a2a.progress.envelopes", side): turns * tools * UPDATES_PER_TOOL
        for side in ("caller", "callee")
    }
    wanted["gen_ai.execute_tool.duration", "callee"] = turns * tools
    if found != wanted:
        raise AssertionError(f"metrics {found}, expected {wanted}")
