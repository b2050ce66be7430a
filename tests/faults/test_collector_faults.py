"""The collector misbehaves: down when the agents start, or slow to answer. Agents never notice.

The callee is its own process exporting over OTLP/HTTP to an ``OtlpReceiver`` on loopback; the
caller, in this process, also exports there in the slow-collector test. Assertions are on the
order of facts (a turn completed while an export was still unanswered), never on durations.
"""

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Final

from a2a.client import Client
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from a2a_progress.consumer import ProgressUpdate, TurnOutcome, follow
from a2a_progress.otel import conventions as conv
from a2a_progress.otlp import OtlpReceiver, ReceivedSpan
from a2a_progress.serving import create_client, user_message
from support.processes import free_port

from .agents import SERVICE_NAME, callee_process
from .telemetry import Pipeline

GUARD: Final = 20.0
"""Bound on every wait; only there so a broken build fails instead of hanging."""
HELD: Final = 600.0
"""The slow collector's delay: longer than any test, so an answered export means it stopped."""


async def turn(client: Client, text: str) -> tuple[list[ProgressUpdate], TurnOutcome]:
    """One streamed turn: its progress in arrival order, and how it ended."""
    updates: list[ProgressUpdate] = []
    outcome: TurnOutcome | None = None
    async with asyncio.timeout(GUARD):
        async for update in follow(client.send_message(user_message(text))):
            if isinstance(update, TurnOutcome):
                outcome = update
            else:
                updates.append(update)
    assert outcome is not None
    return updates, outcome


def steps_envelopes(steps: int) -> int:
    """How many envelopes ``steps N`` sends: a thinking block, or a tool call's start and end."""
    return sum(1 if step % 3 == 0 else 2 for step in range(steps))


def has_span(
    service: str | None, kind: str, task_id: str | None = None
) -> Callable[[list[ReceivedSpan]], bool]:
    """A predicate: some span of ``service`` (any, if None), ``kind`` and ``task_id`` arrived."""

    def found(spans: list[ReceivedSpan]) -> bool:
        return any(
            (service is None or span.service_name == service)
            and span.kind == kind
            and (task_id is None or span.attributes.get(conv.A2A_TASK_ID) == task_id)
            for span in spans
        )

    return found


async def test_a_collector_that_comes_up_late_gets_the_later_spans(tmp_path: Path) -> None:
    port = free_port()  # nothing listens there until the receiver starts below
    async with callee_process(tmp_path, otlp_endpoint=f"http://127.0.0.1:{port}") as callee:
        client = create_client(callee.card("jsonrpc"))
        try:
            for _ in range(2):
                _, outcome = await turn(client, "steps 4")
                assert outcome.succeeded
            with OtlpReceiver("127.0.0.1", http_port=port, grpc_port=None) as receiver:
                updates, outcome = await turn(client, "steps 4")
                assert outcome.succeeded
                assert len(updates) == steps_envelopes(4)
                spans = await asyncio.to_thread(
                    receiver.wait_for_spans,
                    has_span(SERVICE_NAME, "SERVER", outcome.task_id),
                    GUARD,
                )
        finally:
            await client.close()
        assert callee.process.returncode is None  # the callee never fell over
    [execution] = [
        span for span in spans if has_span(SERVICE_NAME, "SERVER", outcome.task_id)([span])
    ]
    assert execution.attributes[conv.A2A_TASK_STATE] == "TASK_STATE_COMPLETED"


async def test_a_slow_collector_holds_no_turn_back(caller: Pipeline, tmp_path: Path) -> None:
    with OtlpReceiver("127.0.0.1", http_port=0, grpc_port=None, response_delay=HELD) as receiver:
        exporter = OTLPSpanExporter(endpoint=f"{receiver.http_endpoint}/v1/traces", timeout=2)
        caller.tracer_provider.add_span_processor(
            BatchSpanProcessor(exporter, schedule_delay_millis=100)
        )
        try:
            async with callee_process(tmp_path, otlp_endpoint=receiver.http_endpoint) as callee:
                client = create_client(callee.card("jsonrpc"))
                try:
                    _, first = await turn(client, "steps 4")
                    # Both sides' exports of the first turn are at the collector, unanswered.
                    await asyncio.to_thread(
                        receiver.wait_for_spans,
                        lambda spans: (
                            has_span(SERVICE_NAME, "SERVER", first.task_id)(spans)
                            and has_span(None, "CLIENT")(spans)
                        ),
                        GUARD,
                    )
                    assert receiver.response_count == 0
                    updates, second = await turn(client, "steps 30")
                finally:
                    await client.close()
            assert second.succeeded
            # Every envelope arrived, in order, while the exports were still held.
            seqs = [update.envelope.seq for update in updates]
            assert seqs == list(range(seqs[0], seqs[0] + steps_envelopes(30)))
            assert receiver.response_count == 0
        finally:
            receiver.stop()  # answers the held exports, so the exporter's thread can stop
            caller.tracer_provider.shutdown()
