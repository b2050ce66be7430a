"""Tool bodies run inside their ``execute_tool`` span: every span the agent's code opens between a
tool call's ``running`` and its ``done`` / ``aborted`` is a child of that tool's span, in the task
that runs the tool and in the tasks it starts; concurrent tools each nest their own work; the
context from before is restored exactly however the tool ends; nothing leaks into the next turn,
the next request or another task; with the callee side off, nothing changes.

The agent's own spans come from the test's tracer provider (the bridge's is the same), opened
with the ordinary ``start_as_current_span``; parents come from the current context alone.
"""

import asyncio
from collections.abc import Awaitable, Callable

import pytest
from a2a.server.agent_execution import RequestContext
from a2a.server.events import EventQueue
from a2a.types import CancelTaskRequest
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan
from otel_support import (
    AgentTurn,
    ScriptedAgent,
    Step,
    Telemetry,
    call,
    parent_id,
    serving,
    span_id,
    task_id_of,
    trace_id,
    user_message,
    wire,
)

from a2a_progress.otel import conventions as conv
from a2a_progress.serving import Transport, create_client

CALLER, CALLEE = conv.OBSERVER_CALLER, conv.OBSERVER_CALLEE
TRANSPORTS: list[Transport] = ["jsonrpc", "rest", "grpc"]


class Own:
    """The agent's own spans, opened with the global-style API in the agent's code."""

    def __init__(self, telemetry: Telemetry) -> None:
        self.tracer = telemetry.tracer_provider.get_tracer("the agent's own code")

    def span(self, name: str) -> None:
        with self.tracer.start_as_current_span(name):
            pass

    async def in_task(self, name: str) -> None:
        """Open ``name`` in a task started here (it copies the current context)."""

        async def work() -> None:
            await asyncio.sleep(0)
            self.span(name)

        await asyncio.create_task(work())


def steps(body: Callable[[AgentTurn], Awaitable[None]]) -> list[Step]:
    async def run(turn: AgentTurn) -> None:
        await body(turn)
        await turn.progress.complete("ok")

    return [run]


def named(telemetry: Telemetry, name: str) -> ReadableSpan:
    [span] = [span for span in telemetry.spans() if span.name == name]
    return span


def tool(telemetry: Telemetry, name: str, turn: int = 0) -> ReadableSpan:
    spans = [
        span
        for span in telemetry.tool_spans(CALLEE)
        if span.name == f"{conv.TOOL_SPAN_PREFIX} {name}"
    ]
    return spans[turn]


def parent_of(telemetry: Telemetry, name: str) -> int | None:
    return parent_id(named(telemetry, name))


async def run_agent(body: Callable[[AgentTurn], Awaitable[None]], transport: Transport) -> None:
    async with serving(steps(body)) as served:
        await call(served.card_for(transport))


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_the_agents_spans_in_an_async_with_tool_are_children_of_its_span(
    telemetry: Telemetry, transport: Transport
) -> None:
    own = Own(telemetry)

    async def body(turn: AgentTurn) -> None:
        own.span("before")
        async with turn.progress.tool_call("search", "c1"):
            own.span("in tool")
            await own.in_task("in a task of the tool")
            await turn.progress.thinking("a thought inside the tool")
            own.span("after an update inside the tool")
        own.span("after")

    await run_agent(body, transport)
    server, search = telemetry.turn_span(CALLEE), tool(telemetry, "search")
    for name in ("in tool", "in a task of the tool", "after an update inside the tool"):
        assert parent_of(telemetry, name) == span_id(search), name
    for name in ("before", "after"):
        assert parent_of(telemetry, name) == span_id(server), name
    # One trace from the caller down to the agent's own spans.
    assert parent_id(server) == span_id(telemetry.turn_span(CALLER))
    assert {trace_id(span) for span in telemetry.spans()} == {trace_id(server)}


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_the_awaited_form_nests_until_done_or_aborted(
    telemetry: Telemetry, transport: Transport
) -> None:
    own = Own(telemetry)
    seen: dict[str, bool] = {}

    async def body(turn: AgentTurn) -> None:
        before = otel_context.get_current()
        first = await turn.progress.tool_call("fetch", "c1")
        own.span("in fetch")
        await first.done()
        seen["restored after done"] = otel_context.get_current() is before
        own.span("between")
        second = await turn.progress.tool_call("query", "c2")
        await own.in_task("in query's task")
        await second.aborted("backend down")
        seen["restored after aborted"] = otel_context.get_current() is before
        own.span("at the end")

    await run_agent(body, transport)
    server = telemetry.turn_span(CALLEE)
    assert parent_of(telemetry, "in fetch") == span_id(tool(telemetry, "fetch"))
    assert parent_of(telemetry, "in query's task") == span_id(tool(telemetry, "query"))
    assert parent_of(telemetry, "between") == span_id(server)
    assert parent_of(telemetry, "at the end") == span_id(server)
    assert seen == {"restored after done": True, "restored after aborted": True}


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_concurrent_tools_under_gather_and_a_task_group_each_nest_their_own_work(
    telemetry: Telemetry,
    transport: Transport,
) -> None:
    own = Own(telemetry)

    async def one(turn: AgentTurn, name: str, gate: asyncio.Event, other: asyncio.Event) -> None:
        async with turn.progress.tool_call(name, name):
            gate.set()
            await other.wait()  # both tools are open now
            own.span(f"work of {name}")
            await own.in_task(f"subtask of {name}")

    async def body(turn: AgentTurn) -> None:
        a, b = asyncio.Event(), asyncio.Event()
        await asyncio.gather(one(turn, "g1", a, b), one(turn, "g2", b, a))
        c, d = asyncio.Event(), asyncio.Event()
        async with asyncio.TaskGroup() as group:
            group.create_task(one(turn, "t1", c, d))
            group.create_task(one(turn, "t2", d, c))
        own.span("after both")

    await run_agent(body, transport)
    for name in ("g1", "g2", "t1", "t2"):
        assert parent_of(telemetry, f"work of {name}") == span_id(tool(telemetry, name))
        assert parent_of(telemetry, f"subtask of {name}") == span_id(tool(telemetry, name))
    assert parent_of(telemetry, "after both") == span_id(telemetry.turn_span(CALLEE))


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_two_tools_in_one_task_closed_out_of_order(
    telemetry: Telemetry, transport: Transport
) -> None:
    own = Own(telemetry)
    seen: dict[str, bool] = {}

    async def body(turn: AgentTurn) -> None:
        before = otel_context.get_current()
        outer = await turn.progress.tool_call("outer", "o1")
        inner = await turn.progress.tool_call("inner", "i1")
        own.span("both open")
        await outer.done()  # not the innermost: the innermost stays current
        own.span("outer closed first")
        await inner.done()  # the tool it was opened within is closed: back to the start
        seen["restored"] = otel_context.get_current() is before
        own.span("both closed")
        # In order, for contrast: closing the inner one gives the outer one back.
        outer = await turn.progress.tool_call("outer", "o2")
        inner = await turn.progress.tool_call("inner", "i2")
        await inner.done()
        own.span("inner closed first")
        await outer.done()
        own.span("all closed")

    await run_agent(body, transport)
    server = telemetry.turn_span(CALLEE)
    first_inner, second_outer = tool(telemetry, "inner", 0), tool(telemetry, "outer", 1)
    assert parent_of(telemetry, "both open") == span_id(first_inner)
    assert parent_of(telemetry, "outer closed first") == span_id(first_inner)
    assert parent_of(telemetry, "both closed") == span_id(server)
    assert parent_of(telemetry, "inner closed first") == span_id(second_outer)
    assert parent_of(telemetry, "all closed") == span_id(server)
    assert seen == {"restored": True}


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_the_agents_own_span_around_a_tool_is_current_again_after_it(
    telemetry: Telemetry,
    transport: Transport,
) -> None:
    own = Own(telemetry)

    async def body(turn: AgentTurn) -> None:
        async with turn.progress.tool_call("plan", "p1"):
            with own.tracer.start_as_current_span("step of plan"):
                async with turn.progress.tool_call("lookup", "l1"):
                    own.span("in lookup")
                own.span("back in the step")
            own.span("back in plan")

    await run_agent(body, transport)
    step = named(telemetry, "step of plan")
    assert parent_id(step) == span_id(tool(telemetry, "plan"))
    assert parent_of(telemetry, "in lookup") == span_id(tool(telemetry, "lookup"))
    assert parent_of(telemetry, "back in the step") == span_id(step)
    assert parent_of(telemetry, "back in plan") == span_id(tool(telemetry, "plan"))


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_context_is_restored_exactly_after_an_exception_and_a_cancellation(
    telemetry: Telemetry,
    transport: Transport,
) -> None:
    own = Own(telemetry)
    seen: dict[str, bool] = {}

    async def body(turn: AgentTurn) -> None:
        before = otel_context.get_current()
        try:
            async with turn.progress.tool_call("failing", "f1"):
                own.span("in failing")
                raise LookupError("not found")
        except LookupError:
            pass
        seen["after exception"] = otel_context.get_current() is before

        started = asyncio.Event()

        async def cancelled() -> None:
            mine = otel_context.get_current()
            try:
                async with turn.progress.tool_call("slow", "s1"):
                    started.set()
                    await asyncio.Event().wait()
            except asyncio.CancelledError:
                seen["after cancellation, in its task"] = otel_context.get_current() is mine
                raise

        task = asyncio.create_task(cancelled())
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        seen["the task's tool never reached this one"] = otel_context.get_current() is before
        own.span("after all")

    await run_agent(body, transport)
    assert seen == {
        "after exception": True,
        "after cancellation, in its task": True,
        "the task's tool never reached this one": True,
    }
    assert parent_of(telemetry, "in failing") == span_id(tool(telemetry, "failing"))
    assert parent_of(telemetry, "after all") == span_id(telemetry.turn_span(CALLEE))
    assert [span.attributes[conv.END_REASON] for span in telemetry.tool_spans(CALLEE)] == [  # type: ignore[index]
        "aborted",
        "aborted",
    ]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_nothing_leaks_into_the_next_turn_or_a_task_started_before_the_tool(
    telemetry: Telemetry,
    transport: Transport,
) -> None:
    own = Own(telemetry)
    turns = 0

    async def body(turn: AgentTurn) -> None:
        nonlocal turns
        turns += 1
        own.span(f"start of turn {turns}")
        gate = asyncio.Event()

        async def bystander() -> None:
            await gate.wait()
            own.span(f"bystander {turns}")

        watcher = asyncio.create_task(bystander())
        call_ = await turn.progress.tool_call("left open", f"o{turns}")
        gate.set()
        await watcher
        del call_  # left open: the turn's end closes it

    agent = ScriptedAgent(steps(body))
    async with serving(agent) as served:
        await call(served.card_for(transport))
        await call(served.card_for(transport))
    servers = sorted(telemetry.turn_spans(CALLEE), key=lambda span: span.start_time or 0)
    for number, server in enumerate(servers, start=1):
        assert parent_of(telemetry, f"start of turn {number}") == span_id(server)
        assert parent_of(telemetry, f"bystander {number}") == span_id(server)
    assert trace_id(servers[0]) != trace_id(servers[1])


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_hand_written_producer_nests_the_same(
    telemetry: Telemetry, transport: Transport
) -> None:
    own = Own(telemetry)
    seen: dict[str, bool] = {}

    async def body(turn: AgentTurn) -> None:
        before = otel_context.get_current()
        await turn.working("Calling tool grep", wire("tool_call", 1, "running", "k1", tool="grep"))
        own.span("in grep")
        await turn.working("Tool grep finished", wire("tool_call", 2, "done", "k1", tool="grep"))
        seen["restored"] = otel_context.get_current() is before
        own.span("after grep")

    await run_agent(body, transport)
    assert parent_of(telemetry, "in grep") == span_id(tool(telemetry, "grep"))
    assert parent_of(telemetry, "after grep") == span_id(telemetry.turn_span(CALLEE))
    assert seen == {"restored": True}


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_tool_closed_from_another_task_is_not_current_at_the_next_update(
    telemetry: Telemetry,
    transport: Transport,
) -> None:
    own = Own(telemetry)

    async def body(turn: AgentTurn) -> None:
        opened = asyncio.Event()
        closed = asyncio.Event()

        async def worker() -> None:
            await turn.progress.tool_call("watched", "w1")
            opened.set()
            await closed.wait()
            await turn.progress.thinking("the worker goes on")
            own.span("worker after the close")

        task = asyncio.create_task(worker())
        await opened.wait()
        await turn.progress.abort_open_calls("stopped from outside")
        closed.set()
        await task

    await run_agent(body, transport)
    assert parent_of(telemetry, "worker after the close") == span_id(telemetry.turn_span(CALLEE))


@pytest.mark.parametrize("how", ["uninstrumented", "caller side only"])
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_without_the_callee_side_the_producer_does_not_touch_the_context(
    telemetry: Telemetry, transport: Transport, how: str
) -> None:
    if how == "uninstrumented":
        telemetry.uninstrument()
    else:
        telemetry.instrument(sides={CALLER})
    own = Own(telemetry)
    seen: list[bool] = []

    async def body(turn: AgentTurn) -> None:
        before = otel_context.get_current()
        async with turn.progress.tool_call("search", "c1"):
            seen.append(otel_context.get_current() is before)
            own.span("in tool")
        call_ = await turn.progress.tool_call("fetch", "c2")
        seen.append(otel_context.get_current() is before)
        await call_.aborted("no")
        seen.append(otel_context.get_current() is before)

    await run_agent(body, transport)
    assert seen == [True, True, True]
    assert telemetry.tool_spans(CALLEE) == []
    assert telemetry.turn_spans(CALLEE) == []
    in_tool = named(telemetry, "in tool")
    if how == "uninstrumented":
        assert parent_id(in_tool) is None  # as before: nothing made any span current
    else:
        # Trace context is still propagated: the agent's work joins the caller's trace.
        assert parent_id(in_tool) == span_id(telemetry.turn_span(CALLER))


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_cancel_runs_inside_the_running_turn(
    telemetry: Telemetry, transport: Transport
) -> None:
    own = Own(telemetry)
    reached = asyncio.Event()

    class Cancellable(ScriptedAgent):
        async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
            own.span("in cancel")
            await super().cancel(context, event_queue)

    async def body(turn: AgentTurn) -> None:
        reached.set()
        await asyncio.Event().wait()

    agent = Cancellable([body])
    async with serving(agent) as served, create_client(served.card_for(transport)) as client:
        stream = client.send_message(user_message())
        first = await anext(aiter(stream))
        await reached.wait()
        await client.cancel_task(CancelTaskRequest(id=task_id_of([first])))
        await stream.aclose()
    assert parent_of(telemetry, "in cancel") == span_id(telemetry.turn_span(CALLEE))
    assert trace.get_current_span().get_span_context().is_valid is False
