"""An agent served by ``serve_agent`` under hostile clients on 127.0.0.1: malformed HTTP/1.1,
lying headers and bodies, slow and idle clients, hostile trace-context headers, and gRPC
messages and metadata past its limits. None of it runs a turn it should not, and the agent's
own clients are served throughout. Every exchange is bounded in time."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import grpc
import httpx
import pytest
from a2a.types import TaskState, a2a_pb2_grpc

from a2a_progress.otel import A2AProgressInstrumentor
from a2a_progress.serving import ServedAgent, serve_agent, user_message
from support import scripted as step
from support.agents import final_state, run_turn
from support.raw_http import exchange, idle_connections, malformed, status, trickle
from support.scripted import ScriptedAgent
from support.telemetry import MemoryTelemetry

SEND = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "SendMessage",
    "params": {"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}},
}


@pytest.fixture
async def agent() -> AsyncIterator[tuple[ScriptedAgent, ServedAgent]]:
    """The agent, instrumented (the request boundary reads every trace-context header)."""
    telemetry = MemoryTelemetry()
    instrumentor = A2AProgressInstrumentor()
    instrumentor.instrument(
        tracer_provider=telemetry.tracer_provider, meter_provider=telemetry.meter_provider
    )
    executor = ScriptedAgent([step.complete("hello")])
    try:
        async with serve_agent(executor) as served:
            yield executor, served
    finally:
        instrumentor.uninstrument()
        telemetry.shutdown()


def address(served: ServedAgent) -> tuple[str, int]:
    host, port = served.http_url.removeprefix("http://").rsplit(":", 1)
    return host, int(port)


async def still_serves(served: ServedAgent) -> None:
    events = await run_turn(served.card_for("jsonrpc"))
    assert final_state(events) == TaskState.TASK_STATE_COMPLETED


async def test_malformed_http_runs_no_turn(agent: tuple[ScriptedAgent, ServedAgent]) -> None:
    executor, served = agent
    where = address(served)
    requests = malformed(served.http_url.removeprefix("http://").encode())
    for name, request in requests.items():
        answer = await asyncio.to_thread(exchange, where, request)
        code = status(answer)
        # Refused, cut off, or (what got through to JSON-RPC) answered with a JSON-RPC error.
        refused = code is None or 400 <= code < 500
        assert refused or (code == 200 and b'"error"' in answer), (name, answer[:200])
    assert executor.turns == {}
    await still_serves(served)


async def test_slow_and_idle_clients_do_not_hold_up_the_agents_callers(
    agent: tuple[ScriptedAgent, ServedAgent],
) -> None:
    _, served = agent
    head = b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    with idle_connections(address(served), 100):
        slow = asyncio.create_task(asyncio.to_thread(trickle, address(served), head, 2.0))
        await still_serves(served)
        await slow


PARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"


@pytest.mark.parametrize(
    "headers",
    [
        {"traceparent": "00-" + "f" * 32 + "-" + "f" * 16 + "-01"},  # the invalid all-f ids
        {"traceparent": "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01"},
        {"traceparent": "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"},
        {"traceparent": "00-" + "a" * 10_000},
        {
            "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "tracestate": ",".join(f"k{n}=v" for n in range(500)),
        },
        {
            "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "baggage": "k=" + "v" * 60_000,
        },
        {"baggage": ",".join("=" for _ in range(5000))},
        {
            "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "baggage": b"k=\xff\x9b31m",
        },
    ],
    ids=[
        "invalid-ids",
        "zero-span",
        "bad-version",
        "long",
        "tracestate",
        "baggage-60k",
        "empties",
        "latin1",
    ],
)
async def test_hostile_trace_context_headers_still_get_a_turn(
    agent: tuple[ScriptedAgent, ServedAgent], headers: dict[str, str | bytes]
) -> None:
    executor, served = agent
    sent = {"content-type": "application/json", "a2a-version": "1.0", **headers}
    async with httpx.AsyncClient(timeout=30) as http:
        answer = await http.post(served.http_url + "/", content=json.dumps(SEND), headers=sent)
    assert answer.status_code == 200, answer.text
    assert answer.json()["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert len(executor.turns) == 1


async def test_json_bodies_that_are_not_a_request_run_no_turn(
    agent: tuple[ScriptedAgent, ServedAgent],
) -> None:
    executor, served = agent
    bodies = [b"5", b"null", b"[]", b"[" * 100_000, b'{"jsonrpc":"2.0"' + b" " * 5_000_000 + b"}"]
    async with httpx.AsyncClient(timeout=30) as http:
        for body in bodies:
            answer = await http.post(
                served.http_url + "/",
                content=body,
                headers={"content-type": "application/json", "a2a-version": "1.0"},
            )
            assert answer.status_code < 500, (body[:20], answer.text)
    assert executor.turns == {}
    await still_serves(served)


async def test_grpc_limits(agent: tuple[ScriptedAgent, ServedAgent]) -> None:
    executor, served = agent
    assert served.grpc_target is not None
    big = user_message("x" * (5 * 1024 * 1024))
    async with grpc.aio.insecure_channel(served.grpc_target) as channel:
        stub = a2a_pb2_grpc.A2AServiceStub(channel)  # type: ignore[no-untyped-call]
        with pytest.raises(grpc.aio.AioRpcError) as too_big:
            await stub.SendMessage(big, timeout=30)
        assert too_big.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        with pytest.raises(grpc.aio.AioRpcError) as huge_metadata:
            await stub.SendMessage(
                user_message("hi"), metadata=(("x-big", "v" * 100_000),), timeout=30
            )
        assert huge_metadata.value.code() != grpc.StatusCode.OK
    assert executor.turns == {}
    events = await run_turn(served.card_for("grpc"))
    assert final_state(events) == TaskState.TASK_STATE_COMPLETED
