"""Peers that misbehave on purpose: a flood of envelopes, a 10 MB fallback text, and a turn that
never ends. The caller (this process, instrumented) stays bounded in memory, keeps its event loop
turning, and ends every span.

The peer is one callee process (``agents.py``) for the whole module. Memory is measured with
tracemalloc and the live structures of the assemblers; responsiveness by a heartbeat task's ticks.
No assertion is about time. ``A2A_PROGRESS_SOAK=1`` floods for a minute instead of 10 seconds.
"""

import asyncio
import contextlib
import gc
import itertools
import os
import tracemalloc
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Final

import pytest
import pytest_asyncio
from opentelemetry.trace import SpanKind, StatusCode

from a2a_progress.consumer import EndReason, ProgressAssembler, ProgressUpdate, TurnOutcome, follow
from a2a_progress.envelope import Kind
from a2a_progress.otel import A2AProgressInstrumentor
from a2a_progress.otel import conventions as conv
from a2a_progress.otel.bridge import Bridge
from a2a_progress.otel.turn import TurnTelemetry
from a2a_progress.serving import create_client, user_message
from support.internals import bridge_assembler, open_tool_spans, turn_states

from .agents import Callee, callee_process
from .telemetry import Pipeline, telemetry_problems

pytestmark = pytest.mark.asyncio(loop_scope="module")

SOAK: Final = os.environ.get("A2A_PROGRESS_SOAK") == "1"
FLOOD_SECONDS: Final = 60 if SOAK else 10
FLOOD_KEYS: Final = 64
SAMPLE_EVERY: Final = 500
WARM_UP: Final = 1000
"""Envelopes after which every stream of the flood exists and memory is measured from."""
ENOUGH: Final = WARM_UP + 4 * SAMPLE_EVERY
"""Envelopes the caller reads at least before walking away, however slow a loaded machine makes
it: the peer floods for up to ``GUARD`` more seconds, so the measurement never depends on how
many envelopes fit in ``FLOOD_SECONDS``."""
# Where network bytes wait: buffers that fill and drain with the flood, not state the caller keeps.
IN_FLIGHT: Final = ("*/httpx/*", "*/httpcore/*", "*/h11/*", "*/anyio/*", "*/asyncio/*", "<unknown>")
BIG_BYTES: Final = 10 * 1024 * 1024
GUARD: Final = 30.0
"""Bound on every wait past what the peer was asked to take; only against hangs."""


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def peer(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Callee]:
    async with callee_process(tmp_path_factory.mktemp("peer")) as callee:
        yield callee


class Heartbeat:
    """A task ticking on the event loop beside the caller's work: if that work starved the loop,
    the count would stop moving. It ticks each time the loop gets to it, not on a clock, so
    the count says how often other tasks ran, whatever the machine's speed."""

    def __init__(self) -> None:
        self.ticks = 0

    async def _beat(self) -> None:
        while True:
            self.ticks += 1
            await asyncio.sleep(0)

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator["Heartbeat"]:
        task = asyncio.create_task(self._beat())
        try:
            yield self
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


@contextlib.contextmanager
def traced_memory() -> Iterator[None]:
    tracemalloc.start()
    try:
        yield
    finally:
        tracemalloc.stop()


def snapshot() -> tracemalloc.Snapshot:
    """What is allocated now, outside network buffers; garbage collected first (cycles that
    are merely not collected yet are not held)."""
    gc.collect()
    exclude = [tracemalloc.Filter(False, pattern) for pattern in (*IN_FLIGHT, tracemalloc.__file__)]
    return tracemalloc.take_snapshot().filter_traces(exclude)


def held_since(warm: tracemalloc.Snapshot | None) -> int:
    """Bytes allocated since ``warm`` and still alive, outside network buffers."""
    assert warm is not None, "the flood never warmed up"
    return sum(diff.size_diff for diff in snapshot().compare_to(warm, "filename"))


def live_bridge() -> Bridge:
    """The instrumentor's bridge (instrumented by the test)."""
    bridge = A2AProgressInstrumentor().bridge
    assert bridge is not None
    return bridge


def the_live_turn() -> TurnTelemetry:
    """The caller's one open turn (the bridge keeps them for shutdown)."""
    [turn] = live_bridge().live_turns
    return turn


@dataclass(frozen=True)
class Sample:
    """The caller's state after some envelopes of the flood."""

    received: int
    ticks: int
    streams: int  # the most streams any assembler (the app's, the bridge's) holds for the turn
    calls: int  # ... and tool calls
    tool_spans: int  # open tool spans in the bridge


def sample(received: int, ticks: int, assembler: ProgressAssembler) -> Sample:
    turn = the_live_turn()
    app_turns, bridge_turns = turn_states(assembler), turn_states(bridge_assembler(turn))
    states = [*app_turns, *bridge_turns]
    return Sample(
        received,
        ticks,
        max(len(state.streams) for state in states),
        max(len(state.calls) for state in states),
        len(open_tool_spans(turn)),
    )


async def test_a_flooding_peer_leaves_the_caller_bounded_and_responsive(peer: Callee) -> None:
    pipeline = Pipeline(keep_spans=False)  # a flood's spans, kept, would be the leak
    with pipeline.instrumented(), traced_memory():
        client = create_client(peer.flood_card())
        assembler = ProgressAssembler()
        samples: list[Sample] = []
        received, growth = 0, None
        warm = None
        loop = asyncio.get_running_loop()
        # The peer sends faster than the caller reads (tracemalloc slows it down more); the
        # caller reads for FLOOD_SECONDS and at least ENOUGH envelopes, then walks away while
        # the peer still floods.
        stop_reading = loop.time() + FLOOD_SECONDS
        try:
            async with (
                Heartbeat().running() as heartbeat,
                contextlib.aclosing(
                    follow(
                        client.send_message(
                            user_message(f"flood {FLOOD_SECONDS + GUARD} {FLOOD_KEYS}")
                        ),
                        assembler=assembler,
                    )
                ) as updates,
            ):
                async for update in updates:
                    assert isinstance(update, ProgressUpdate)
                    received += 1
                    if received % SAMPLE_EVERY == 0:
                        samples.append(sample(received, heartbeat.ticks, assembler))
                    if received == WARM_UP:
                        warm = snapshot()
                    if received >= ENOUGH and loop.time() > stop_reading:
                        growth = held_since(warm)
                        break
        finally:
            await client.close()
        peak = tracemalloc.get_traced_memory()[1]
        assert len(live_bridge().live_turns) == 0  # walking away ended the turn's spans
    assert growth is not None, f"the flood ended after {received} envelopes: no walking away"
    assert len(samples) >= 4, f"only {received} envelopes arrived"
    # The loop kept turning between every two samples: the flood never starved it.
    assert all(later.ticks > earlier.ticks for earlier, later in itertools.pairwise(samples))
    # What the caller holds is bounded by the peer's streams, not by how much it sent.
    assert max(s.streams for s in samples) <= FLOOD_KEYS + 1  # + the keyless thinking stream
    assert max(s.calls for s in samples) <= FLOOD_KEYS
    assert max(s.tool_spans for s in samples) <= FLOOD_KEYS
    # And so is memory: once warm, what it holds does not grow with the envelopes.
    assert growth < 256 * 1024, f"{growth} bytes more over {received - WARM_UP} envelopes"
    assert peak < 16 * 1024 * 1024
    assert pipeline.checker.problems == []
    assert pipeline.checker.exported > received // 3  # tool spans: one per start and end pair


async def test_a_10_mb_fallback_text_is_bounded_and_not_kept(peer: Callee) -> None:
    pipeline = Pipeline()
    with pipeline.instrumented(), traced_memory():
        client = create_client(peer.card("jsonrpc"))
        baseline = tracemalloc.get_traced_memory()[0]
        seen: list[tuple[bool, int]] = []  # (degraded, fallback length): never the text itself
        outcome = None
        try:
            async with asyncio.timeout(GUARD):
                async for update in follow(client.send_message(user_message(f"big {BIG_BYTES}"))):
                    if isinstance(update, TurnOutcome):
                        outcome = update
                    else:
                        seen.append((update.degraded, len(update.fallback)))
                    del update
        finally:
            await client.close()
        retained, peak = tracemalloc.get_traced_memory()
    assert outcome is not None
    assert outcome.succeeded
    assert seen == [(False, BIG_BYTES), (True, BIG_BYTES)]
    # Nothing kept a copy once the turn was over; the peak is a few copies in flight, at most.
    assert retained - baseline < 4 * 1024 * 1024
    assert peak - baseline < 12 * BIG_BYTES
    spans = pipeline.spans()
    assert telemetry_problems(spans, 4096) == []
    [call] = [span for span in spans if span.kind is SpanKind.CLIENT]
    # The envelope's text is an event of the peer's own span, which it announced (tfrs.turn);
    # the degraded text, which no envelope carried, is the caller's.
    [degraded] = call.events
    assert degraded.attributes[conv.DEGRADED] is True
    assert degraded.attributes[conv.CONTENT_TRUNCATED] is True


async def test_a_turn_that_ends_without_a_terminal_state_closes_with_the_stream(
    peer: Callee,
) -> None:
    pipeline = Pipeline()
    with pipeline.instrumented():
        client = create_client(peer.card("jsonrpc"))
        assembler = ProgressAssembler()
        try:
            async with asyncio.timeout(GUARD):
                updates = [
                    update
                    async for update in follow(
                        client.send_message(user_message("no-terminal")), assembler=assembler
                    )
                ]
        finally:
            await client.close()
        assert assembler.live_turns == 0
        assert len(live_bridge().live_turns) == 0
    outcome = updates[-1]
    assert isinstance(outcome, TurnOutcome)
    assert not outcome.terminal
    assert [call.end_reason for call in outcome.closed] == [EndReason.STREAM_CLOSED]
    [tool] = [span for span in pipeline.spans() if span.name.startswith(conv.TOOL_SPAN_PREFIX)]
    assert tool.attributes[conv.END_REASON] == EndReason.STREAM_CLOSED.value


async def test_a_turn_that_never_ends_is_ended_at_shutdown(peer: Callee) -> None:
    pipeline = Pipeline()
    with pipeline.instrumented():
        client = create_client(peer.card("grpc"))
        try:
            async with (
                asyncio.timeout(GUARD),
                contextlib.aclosing(follow(client.send_message(user_message("hang")))) as updates,
            ):
                async for update in updates:
                    if isinstance(update, ProgressUpdate) and update.envelope.kind is Kind.THINKING:
                        break  # the tool is running, and nothing more will ever come
                # Process shutdown (the instrumentor's exit hook) while the stream is open.
                live_bridge().end_live_turns()
                assert len(live_bridge().live_turns) == 0
        finally:
            await client.close()
    spans = pipeline.spans()
    [tool] = [span for span in spans if span.name.startswith(conv.TOOL_SPAN_PREFIX)]
    assert tool.attributes[conv.END_REASON] == EndReason.SHUTDOWN.value
    [call] = [span for span in spans if span.kind is SpanKind.CLIENT]
    assert call.status.status_code is StatusCode.UNSET
