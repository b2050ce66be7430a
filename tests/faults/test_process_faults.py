"""Real processes on loopback: a callee killed mid-tool, and a caller that walks away mid-stream.

The callee is its own process (``agents.py``, served by ``serve_forever`` and instrumented); the
caller is this process, instrumented on in-memory spans. Every wait is bounded.
"""

import asyncio
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Final

import pytest
from a2a.client import A2AClientError
from a2a.types import StreamResponse
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import SpanKind, StatusCode

from a2a_progress.consumer import EndReason
from a2a_progress.envelope import Envelope, Kind, Status
from a2a_progress.otel import conventions as conv
from a2a_progress.otlp import OtlpReceiver, ReceivedSpan
from a2a_progress.sdk.adapter import read_envelope
from a2a_progress.serving import Transport, create_client, user_message

from .agents import SERVICE_NAME, callee_process, log_tail
from .telemetry import Pipeline

GUARD: Final = 20.0
"""Bound on every wait, below the client's 30 s read timeout: a hang fails as a hang."""


def starts_tool(event: StreamResponse) -> bool:
    envelope = read_envelope(event)
    return (
        isinstance(envelope, Envelope)
        and envelope.kind is Kind.TOOL_CALL
        and envelope.status is Status.RUNNING
    )


def tool_spans(spans: list[ReadableSpan]) -> list[ReadableSpan]:
    return [span for span in spans if span.name.startswith(conv.TOOL_SPAN_PREFIX)]


@pytest.mark.parametrize("transport", ["jsonrpc", "grpc"])
async def test_a_callee_killed_mid_tool_ends_the_callers_spans_with_an_error(
    caller: Pipeline, transport: Transport, tmp_path: Path
) -> None:
    async with callee_process(tmp_path) as callee:
        client = create_client(callee.card(transport))

        async def read_and_kill() -> None:
            async for event in client.send_message(user_message("hang-in-tool")):
                if starts_tool(event):
                    callee.process.kill()

        try:
            # A clear error on every transport; a hang would be the guard's TimeoutError.
            with pytest.raises(A2AClientError):
                await asyncio.wait_for(read_and_kill(), GUARD)
        finally:
            await client.close()
        assert await callee.process.wait() == -signal.SIGKILL, log_tail(callee.log)
    spans = caller.spans()
    [call] = [span for span in spans if span.kind is SpanKind.CLIENT]
    assert call.status.status_code is StatusCode.ERROR
    [tool] = tool_spans(spans)
    assert tool.name == f"{conv.TOOL_SPAN_PREFIX} slow"
    assert tool.attributes[conv.END_REASON] == EndReason.STREAM_CLOSED.value
    assert tool.status.status_code is StatusCode.ERROR


def callee_done(task_id: str) -> Callable[[list[ReceivedSpan]], bool]:
    def done(spans: list[ReceivedSpan]) -> bool:
        return any(
            span.service_name == SERVICE_NAME
            and span.kind == "SERVER"
            and span.attributes.get(conv.A2A_TASK_ID) == task_id
            for span in spans
        )

    return done


async def test_a_caller_that_walks_away_leaves_the_callee_working(
    caller: Pipeline, tmp_path: Path
) -> None:
    with OtlpReceiver("127.0.0.1", http_port=0, grpc_port=None) as receiver:
        async with callee_process(tmp_path, otlp_endpoint=receiver.http_endpoint) as callee:
            client = create_client(callee.card("jsonrpc"))
            stream = client.send_message(user_message("wait-for-signal"))
            task_id = ""
            try:
                async with asyncio.timeout(GUARD):
                    async for event in stream:
                        task_id = task_id or event.task.id
                        if starts_tool(event):
                            break
            finally:
                await stream.aclose()  # type: ignore[attr-defined]
                await client.close()
            # Only now may the callee go on: whatever it does next, no caller hears it.
            callee.signal(signal.SIGUSR1)
            spans = await asyncio.to_thread(receiver.wait_for_spans, callee_done(task_id), GUARD)
    [execution] = [span for span in spans if span.kind == "SERVER"]
    assert execution.status_code != "ERROR"
    assert execution.attributes[conv.A2A_TASK_STATE] == "TASK_STATE_COMPLETED"
    thoughts = [event.attributes.get(conv.CONTENT) for event in execution.events]
    assert "still working, nobody listening" in thoughts
    [tool] = [span for span in spans if span.name == f"{conv.TOOL_SPAN_PREFIX} long"]
    assert tool.parent_span_id == execution.span_id
    assert tool.attributes[conv.END_REASON] == EndReason.TURN_COMPLETED.value
    # The caller's side ended when it stopped reading: closed, which is not an error.
    [call] = [span for span in caller.spans() if span.kind is SpanKind.CLIENT]
    assert call.status.status_code is StatusCode.UNSET
    [caller_tool] = tool_spans(caller.spans())
    assert caller_tool.attributes[conv.END_REASON] == EndReason.STREAM_CLOSED.value
    assert caller_tool.status.status_code is StatusCode.UNSET
