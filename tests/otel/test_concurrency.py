"""Many turns at once: 20 concurrent calls over all three transports, each with several tool
calls, all held open together. Spans stay apart: each turn's tools and events sit under its own
call and execution spans, in its own trace, with its own task id."""

import asyncio
from collections import defaultdict

from otel_support import (
    AgentTurn,
    ScriptedAgent,
    Telemetry,
    attrs,
    complete,
    drain,
    events,
    parent_id,
    serving,
    span_id,
    trace_id,
    user_message,
)

from a2a_progress.otel import conventions as conv
from a2a_progress.serving import TRANSPORTS, create_client

TURNS = 20
TOOLS = 3


class Rendezvous:
    """Holds every turn after its first tool started until all turns got there."""

    def __init__(self, parties: int) -> None:
        self.parties = parties
        self.arrived = 0
        self.all_here = asyncio.Event()

    async def wait(self) -> None:
        self.arrived += 1
        if self.arrived == self.parties:
            self.all_here.set()
        await self.all_here.wait()


async def test_concurrent_turns_keep_their_spans_apart(telemetry: Telemetry) -> None:
    rendezvous = Rendezvous(TURNS)

    async def tools_named_after_the_request(turn: AgentTurn) -> None:
        name = turn.context.get_user_input()
        for j in range(TOOLS):
            call = await turn.progress.tool_call(f"{name}.{j}", f"{name}-c{j}")
            if j == 0:
                await rendezvous.wait()
            await turn.progress.thinking(f"{name} step {j}")
            await call.done()

    agent = ScriptedAgent([tools_named_after_the_request, complete()])
    async with serving(agent) as served:
        clients = [create_client(served.card_for(transport)) for transport in TRANSPORTS]
        try:
            await asyncio.gather(
                *(
                    drain(clients[i % len(clients)], user_message(f"turn{i:02d}"))
                    for i in range(TURNS)
                )
            )
        finally:
            for client in clients:
                await client.close()

    spans_by_task = defaultdict(list)
    for span in telemetry.spans():
        spans_by_task[attrs(span)[conv.A2A_TASK_ID]].append(span)
    assert len(spans_by_task) == TURNS
    assert len({trace_id(span) for span in telemetry.spans()}) == TURNS

    for turn in agent.turns.values():
        name = turn.context.get_user_input()
        spans = spans_by_task[turn.task_id]
        [caller] = [
            s for s in spans if s.name == "SendStreamingMessage" and s.kind.name == "CLIENT"
        ]
        [callee] = [
            s for s in spans if s.name == "SendStreamingMessage" and s.kind.name == "SERVER"
        ]
        assert parent_id(callee) == span_id(caller)
        assert {trace_id(span) for span in spans} == {trace_id(caller)}
        for observer, parent in ((conv.OBSERVER_CALLER, caller), (conv.OBSERVER_CALLEE, callee)):
            tools = [s for s in spans if attrs(s).get(conv.OBSERVER) == observer]
            assert sorted(s.name for s in tools) == [
                f"execute_tool {name}.{j}" for j in range(TOOLS)
            ]
            assert all(parent_id(tool) == span_id(parent) for tool in tools)
            assert all(attrs(tool)[conv.END_REASON] == "done" for tool in tools)
            assert [e[conv.CONTENT] for e in events(parent)] == [
                f"{name} step {j}" for j in range(TOOLS)
            ]
    assert len(telemetry.tool_spans()) == 2 * TURNS * TOOLS
