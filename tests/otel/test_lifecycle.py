"""Span lifecycle: names, kinds, parents and attributes of call, execution and tool spans, and
every way a turn can end. The ``telemetry`` fixture also checks, after each test, that every span
started was ended exactly once."""

import asyncio
import contextlib
import gc
import json
from typing import Any

import pytest
from a2a.server.agent_execution import RequestContext
from a2a.server.events import EventQueue
from a2a.types import CancelTaskRequest, StreamResponse, TaskState
from a2a.utils.errors import A2AError
from opentelemetry.trace import SpanKind, StatusCode
from otel_support import (
    ScriptedAgent,
    Step,
    Telemetry,
    abort,
    attrs,
    call,
    cancel,
    complete,
    done,
    envelope_of,
    event_names,
    events,
    fail,
    parent_id,
    raise_,
    reached,
    reject,
    serving,
    span_id,
    start,
    status,
    subscribe_midway,
    task_id_of,
    text,
    thinking,
    trace_id,
    user_message,
    wait,
)

from a2a_progress.envelope import Kind, Status
from a2a_progress.otel import conventions as conv
from a2a_progress.serving import create_client
from support.spans import tool_call_id

CALLER, CALLEE = conv.OBSERVER_CALLER, conv.OBSERVER_CALLEE
AGENT = "a2a-progress agent"  # serve_agent's default card name


def without(attributes: dict[str, Any], *names: str) -> dict[str, Any]:
    """``attributes`` less ``names``."""
    return {key: value for key, value in attributes.items() if key not in names}


def ids_of(stream: list[StreamResponse]) -> tuple[str, str]:
    first = stream[0]
    task = first.task if first.HasField("task") else None
    assert task is not None
    return task.id, task.context_id


def is_tool_start(event: StreamResponse) -> bool:
    envelope = envelope_of(event)
    return (
        envelope is not None
        and envelope.kind is Kind.TOOL_CALL
        and envelope.status is Status.RUNNING
    )


async def test_streaming_call_execution_and_tool_spans(telemetry: Telemetry) -> None:
    steps = [thinking("planning"), start("search", "c1"), text("looking"), done("c1"), complete()]
    async with serving(steps) as served:
        stream = await call(served.card_for("jsonrpc"))
    task_id, context_id = ids_of(stream)
    port = int(served.http_url.rsplit(":", 1)[1])

    caller, callee = telemetry.turn_span(CALLER), telemetry.turn_span(CALLEE)
    assert (caller.name, caller.kind) == ("SendStreamingMessage", SpanKind.CLIENT)
    assert (callee.name, callee.kind) == ("SendStreamingMessage", SpanKind.SERVER)
    # Content is on in these tests: the turn's reasoning, text and reply, as GenAI backends read.
    for turn in (caller, callee):
        assert json.loads(attrs(turn)[conv.GEN_AI_OUTPUT_MESSAGES]) == [
            {
                "role": "assistant",
                "parts": [
                    {"type": "reasoning", "content": "planning"},
                    {"type": "text", "content": "looking"},
                    {"type": "text", "content": "all done"},
                ],
                "finish_reason": "stop",
            }
        ]
    # The draft A2A attributes: the message sent (the same id on both sides) and the agent's
    # card; the caller also names the protocol version of the interface it chose.
    message_id = attrs(caller)["a2a.message.id"]
    agent = {
        "gen_ai.agent.name": AGENT,
        "gen_ai.agent.description": served.card.description,
        "gen_ai.agent.version": served.card.version,
    }
    assert without(attrs(caller), conv.GEN_AI_OUTPUT_MESSAGES) == {
        "a2a.method.name": "SendStreamingMessage",
        "a2a.message.id": message_id,
        "a2a.protocol.version": "1.0",
        "a2a.task.id": task_id,
        "a2a.task.state": "TASK_STATE_COMPLETED",
        "gen_ai.conversation.id": context_id,
        **agent,
        "server.address": "127.0.0.1",
        "server.port": port,
    }
    assert without(attrs(callee), conv.GEN_AI_OUTPUT_MESSAGES) == {
        "a2a.method.name": "SendStreamingMessage",
        "a2a.message.id": message_id,
        "a2a.task.id": task_id,
        "a2a.task.state": "TASK_STATE_COMPLETED",
        "gen_ai.conversation.id": context_id,
        **agent,
    }
    assert parent_id(caller) is None
    assert parent_id(callee) == span_id(caller)
    assert status(caller) is status(callee) is StatusCode.UNSET

    for observer, turn in ((CALLER, caller), (CALLEE, callee)):
        tool = telemetry.tool_span(observer)
        assert (tool.name, tool.kind) == ("execute_tool search", SpanKind.INTERNAL)
        assert parent_id(tool) == span_id(turn)
        assert trace_id(tool) == trace_id(caller)
        # Both sides trace the call: the callee's span is the execution, the caller's mirrors it.
        counted = (
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "search",
                "gen_ai.tool.call.id": "c1",
            }
            if observer == CALLEE
            else {  # no gen_ai.* at all: no backend counts it as an execution
                "a2a.progress.mirror": True,
                "a2a.progress.tool.name": "search",
                "a2a.progress.tool.call.id": "c1",
            }
        )
        assert attrs(tool) == {
            **counted,
            "a2a.task.id": task_id,
            "gen_ai.conversation.id": context_id,
            "a2a.progress.stream_key": "c1",
            "a2a.progress.observer": observer,
            "a2a.progress.seq.first": 2,
            "a2a.progress.seq.last": 4,
            "a2a.progress.end_reason": "done",
        }
        assert status(tool) is StatusCode.UNSET
        # The tool span lies within its turn span.
        assert (turn.start_time or 0) <= (tool.start_time or -1)
        assert (tool.end_time or 0) <= (turn.end_time or -1)


async def test_a_call_on_the_default_stream_has_no_key_or_id(telemetry: Telemetry) -> None:
    async with serving([start("shell"), done("shell"), complete()]) as served:
        await call(served.card_for("grpc"))
    for observer in (CALLER, CALLEE):
        tool = telemetry.tool_span(observer)
        assert tool.name == "execute_tool shell"
        assert conv.STREAM_KEY not in attrs(tool)
        assert tool_call_id(attrs(tool)) is None
        assert attrs(tool)[conv.END_REASON] == "done"


async def test_an_aborted_tool_is_an_error_with_its_reason(telemetry: Telemetry) -> None:
    async with serving([start("fetch", "f1"), abort("f1", "disk full"), complete()]) as served:
        await call(served.card_for("rest"))
    for observer in (CALLER, CALLEE):
        tool = telemetry.tool_span(observer)
        assert attrs(tool)[conv.END_REASON] == "aborted"
        assert status(tool) is StatusCode.ERROR
        assert tool.status.description == "disk full"
        assert status(telemetry.turn_span(observer)) is StatusCode.UNSET


@pytest.mark.parametrize(
    "case",
    [
        (complete(), "TASK_STATE_COMPLETED", StatusCode.UNSET, "turn_completed", StatusCode.UNSET),
        (fail(), "TASK_STATE_FAILED", StatusCode.ERROR, "turn_failed", StatusCode.ERROR),
        (reject(), "TASK_STATE_REJECTED", StatusCode.ERROR, "turn_failed", StatusCode.ERROR),
        # A cancellation is no error, of the turn or of its tools.
        (cancel(), "TASK_STATE_CANCELED", StatusCode.UNSET, "turn_canceled", StatusCode.UNSET),
    ],
    ids=["completed", "failed", "rejected", "canceled"],
)
async def test_tools_open_at_the_terminal_state_end_with_the_turn(
    telemetry: Telemetry, case: tuple[Step, str, StatusCode, str, StatusCode]
) -> None:
    terminal, state, tool_status, end_reason, turn_status = case
    async with serving([start("a", "a1"), start("b", "b1"), terminal]) as served:
        await call(served.card_for("jsonrpc"))
    for observer in (CALLER, CALLEE):
        turn = telemetry.turn_span(observer)
        assert attrs(turn)[conv.A2A_TASK_STATE] == state
        assert status(turn) is turn_status
        tools = telemetry.tool_spans(observer)
        assert [tool.name for tool in tools] == ["execute_tool a", "execute_tool b"]
        for tool in tools:
            assert attrs(tool)[conv.END_REASON] == end_reason
            assert status(tool) is tool_status


@pytest.mark.parametrize("transport", ["jsonrpc", "rest", "grpc"])
async def test_an_executor_that_raises(telemetry: Telemetry, transport: str) -> None:
    steps = [thinking("trying"), start("search", "c1"), raise_(RuntimeError("boom"))]
    async with serving(steps) as served:
        with pytest.raises(A2AError):  # the type depends on the transport
            await call(served.card_for(transport))  # type: ignore[arg-type]

    callee = telemetry.turn_span(CALLEE)
    assert status(callee) is StatusCode.ERROR
    assert callee.status.description == "RuntimeError: boom"
    assert attrs(callee)[conv.ERROR_TYPE] == "RuntimeError"
    [exception] = events(callee, "exception")
    assert exception["exception.type"] == "RuntimeError"
    assert exception["exception.message"] == "boom"
    callee_tool = telemetry.tool_span(CALLEE)
    assert attrs(callee_tool)[conv.END_REASON] == "turn_failed"
    assert attrs(callee_tool)[conv.ERROR_TYPE] == "turn_failed"
    assert status(callee_tool) is StatusCode.ERROR

    # The caller saw the call raise: its span and the tool it left open are errors.
    caller = telemetry.turn_span(CALLER)
    assert status(caller) is StatusCode.ERROR
    assert "exception" in event_names(caller)
    # The client's exception, by its fully qualified name (a2a-sdk's, by transport).
    assert attrs(caller)[conv.ERROR_TYPE].startswith("a2a.")
    assert attrs(caller)[conv.A2A_TASK_STATE] == "TASK_STATE_WORKING"
    caller_tool = telemetry.tool_span(CALLER)
    assert attrs(caller_tool)[conv.END_REASON] == "stream_closed"
    assert status(caller_tool) is StatusCode.ERROR
    assert parent_id(caller_tool) == span_id(caller)


async def test_a_stream_that_ends_without_a_terminal_state(telemetry: Telemetry) -> None:
    async with serving([start("search", "c1"), thinking("then nothing")]) as served:
        await call(served.card_for("grpc", v0_3=True))
    for observer in (CALLER, CALLEE):
        turn = telemetry.turn_span(observer)
        assert status(turn) is StatusCode.UNSET
        assert attrs(turn)[conv.A2A_TASK_STATE] == "TASK_STATE_WORKING"
        tool = telemetry.tool_span(observer)
        assert attrs(tool)[conv.END_REASON] == "stream_closed"
        assert status(tool) is StatusCode.UNSET


async def test_early_break_then_garbage_collection(telemetry: Telemetry) -> None:
    gate = asyncio.Event()
    steps = [start("search", "c1"), wait(gate), done("c1"), complete()]
    async with serving(steps) as served, create_client(served.card_for("jsonrpc")) as client:
        stream = client.send_message(user_message())
        async for event in stream:
            if is_tool_start(event):
                break
        assert telemetry.turn_spans(CALLER) == []
        del stream
        gc.collect()
        caller = telemetry.turn_span(CALLER)
        assert status(caller) is StatusCode.UNSET
        tool = telemetry.tool_span(CALLER)
        assert attrs(tool)[conv.END_REASON] == "stream_closed"
        assert parent_id(tool) == span_id(caller)
        gate.set()  # an abandoned stream does not stop the executor
    assert attrs(telemetry.tool_span(CALLEE))[conv.END_REASON] == "done"
    assert attrs(telemetry.turn_span(CALLEE))[conv.A2A_TASK_STATE] == "TASK_STATE_COMPLETED"


async def test_aclose_ends_the_call(telemetry: Telemetry) -> None:
    gate = asyncio.Event()
    steps = [start("search", "c1"), wait(gate), done("c1"), complete()]
    async with serving(steps) as served, create_client(served.card_for("rest")) as client:
        stream = client.send_message(user_message())
        async with contextlib.aclosing(stream):  # type: ignore[type-var]
            async for event in stream:
                if is_tool_start(event):
                    break
        tool = telemetry.tool_span(CALLER)
        assert attrs(tool)[conv.END_REASON] == "stream_closed"
        assert attrs(telemetry.turn_span(CALLER))[conv.A2A_TASK_STATE] == "TASK_STATE_WORKING"
        gate.set()
    assert attrs(telemetry.tool_span(CALLEE))[conv.END_REASON] == "done"


async def test_unary_send_message(telemetry: Telemetry) -> None:
    steps = [thinking("planning"), start("search", "c1"), done("c1"), complete()]
    async with serving(steps) as served:
        [response] = await call(served.card_for("grpc"), streaming=False)
    assert response.HasField("task")
    caller, callee = telemetry.turn_span(CALLER), telemetry.turn_span(CALLEE)
    assert caller.name == callee.name == "SendMessage"
    assert attrs(caller)[conv.A2A_METHOD_NAME] == attrs(callee)[conv.A2A_METHOD_NAME]
    assert attrs(caller)[conv.A2A_METHOD_NAME] == "SendMessage"
    assert attrs(caller)[conv.A2A_TASK_STATE] == "TASK_STATE_COMPLETED"
    assert parent_id(callee) == span_id(caller)
    # The caller sees the progress only in the task's history, and still gets the tool span.
    for observer, turn in ((CALLER, caller), (CALLEE, callee)):
        tool = telemetry.tool_span(observer)
        assert parent_id(tool) == span_id(turn)
        assert attrs(tool)[conv.END_REASON] == "done"
        assert [event[conv.CONTENT] for event in events(turn)] == ["planning"]


async def test_return_immediately_then_subscribe(telemetry: Telemetry) -> None:
    started, gate = asyncio.Event(), asyncio.Event()
    steps = [
        start("search", "c1"),
        reached(started),
        wait(gate),
        text("found it"),
        done("c1"),
        complete(),
    ]
    async with serving(steps) as served:
        submitted, subscribed = await subscribe_midway(served.card_for("jsonrpc"), started, gate)
    assert task_id_of(subscribed) == submitted.task.id

    send, subscribe = sorted(telemetry.turn_spans(CALLER), key=lambda span: span.start_time or 0)
    assert send.name == "SendMessage"
    assert attrs(send)[conv.A2A_TASK_STATE] == "TASK_STATE_SUBMITTED"
    assert status(send) is StatusCode.UNSET
    assert subscribe.name == "SubscribeToTask"
    assert without(attrs(subscribe), conv.GEN_AI_OUTPUT_MESSAGES) == {
        "a2a.method.name": "SubscribeToTask",
        "a2a.protocol.version": "1.0",
        "a2a.task.id": submitted.task.id,
        "a2a.task.state": "TASK_STATE_COMPLETED",
        "gen_ai.conversation.id": submitted.task.context_id,
        "gen_ai.agent.name": AGENT,
        "gen_ai.agent.description": served.card.description,
        "gen_ai.agent.version": served.card.version,
        "server.address": "127.0.0.1",
        "server.port": int(served.http_url.rsplit(":", 1)[1]),
    }
    # The tool started before the subscription: it comes with the task snapshot.
    tool = telemetry.tool_span(CALLER)
    assert parent_id(tool) == span_id(subscribe)
    assert attrs(tool)[conv.END_REASON] == "done"
    assert [event[conv.CONTENT] for event in events(subscribe)] == ["found it"]
    callee = telemetry.turn_span(CALLEE)
    assert callee.name == "SendMessage"
    assert parent_id(callee) == span_id(send)


async def test_cancel_mid_stream(telemetry: Telemetry) -> None:
    never = asyncio.Event()
    steps = [start("search", "c1"), wait(never)]
    async with serving(steps) as served, create_client(served.card_for("grpc")) as client:
        seen = []
        async for event in client.send_message(user_message()):
            seen.append(event)
            if is_tool_start(event):
                await client.cancel_task(CancelTaskRequest(id=task_id_of(seen)))
    for observer in (CALLER, CALLEE):
        turn = telemetry.turn_span(observer)
        assert attrs(turn)[conv.A2A_TASK_STATE] == "TASK_STATE_CANCELED"
        assert status(turn) is StatusCode.UNSET
        tool = telemetry.tool_span(observer)
        assert attrs(tool)[conv.END_REASON] == "turn_canceled"
        assert status(tool) is StatusCode.UNSET  # a cancellation is no error
        assert conv.ERROR_TYPE not in attrs(tool)


class SilentOnCancel(ScriptedAgent):
    """Its cancel() sends nothing: the stream never shows CANCELED."""

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        return None


async def test_cancel_that_sends_no_state(telemetry: Telemetry) -> None:
    agent = SilentOnCancel([start("search", "c1"), wait(asyncio.Event())])
    async with serving(agent) as served, create_client(served.card_for("jsonrpc")) as client:
        seen = []
        async for event in client.send_message(user_message()):
            seen.append(event)
            if is_tool_start(event):
                await client.cancel_task(CancelTaskRequest(id=task_id_of(seen)))
    # The callee's execute() was cancelled: its open tool ends turn_canceled.
    callee_tool = telemetry.tool_span(CALLEE)
    assert attrs(callee_tool)[conv.END_REASON] == "turn_canceled"
    assert status(callee_tool) is StatusCode.UNSET  # a cancellation is no error
    assert status(telemetry.turn_span(CALLEE)) is StatusCode.UNSET
    # The caller's stream just ended, with no terminal state and no error.
    caller_tool = telemetry.tool_span(CALLER)
    assert attrs(caller_tool)[conv.END_REASON] == "stream_closed"
    assert status(caller_tool) is StatusCode.UNSET
    assert attrs(telemetry.turn_span(CALLER))[conv.A2A_TASK_STATE] == "TASK_STATE_WORKING"


async def test_process_shutdown_ends_live_turns(telemetry: Telemetry) -> None:
    started, gate = asyncio.Event(), asyncio.Event()
    steps = [start("search", "c1"), reached(started), wait(gate), thinking("later"), complete()]
    async with serving(steps) as served, create_client(served.card_for("jsonrpc")) as client:
        stream = aiter(client.send_message(user_message()))
        while not is_tool_start(await anext(stream)):
            pass
        await started.wait()

        bridge = telemetry.instrumentor.bridge
        assert bridge is not None
        bridge.end_live_turns()  # what the instrumentor's exit hook does

        for observer in (CALLER, CALLEE):
            tool = telemetry.tool_span(observer)
            assert attrs(tool)[conv.END_REASON] == "shutdown"
            assert parent_id(tool) == span_id(telemetry.turn_span(observer))
        ended = len(telemetry.spans())
        gate.set()
        rest = [event async for event in stream]
    # The agent and the caller carry on untouched; the ended turns record nothing more.
    assert rest[-1].status_update.status.state == TaskState.TASK_STATE_COMPLETED
    assert len(telemetry.spans()) == ended
    for observer in (CALLER, CALLEE):
        turn = telemetry.turn_span(observer)
        assert attrs(turn)[conv.A2A_TASK_STATE] == "TASK_STATE_WORKING"
        assert events(turn) == []
