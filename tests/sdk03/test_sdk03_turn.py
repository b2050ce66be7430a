"""a2a-progress on a2a-sdk 0.3: the README's callee (examples/sdk03_callee.py), served by 0.3's
own app on 127.0.0.1, called by 0.3's client, read by follow(), under the instrumentor: every
tool call one ``execute_tool`` span, the callee's (the caller, told so, makes none), in one
trace. Runs where a2a-sdk 0.3 is installed (make test-sdk03); elsewhere it is skipped."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from a2a_progress.sdk import LINE, SdkLine

pytestmark = pytest.mark.skipif(LINE is not SdkLine.V03, reason="needs a2a-sdk 0.3")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def example() -> Any:
    """examples/sdk03_callee.py as a module."""
    sys.path.insert(0, str(EXAMPLES))
    try:
        import sdk03_callee
    finally:
        sys.path.remove(str(EXAMPLES))
    return sdk03_callee


@contextlib.asynccontextmanager
async def served(executor: Any = None) -> AsyncIterator[str]:
    """The example agent (or ``executor`` behind the example's card) on a free loopback port;
    its URL."""
    import uvicorn
    from a2a.server.apps import A2AStarletteApplication
    from a2a.server.request_handlers import DefaultRequestHandler
    from a2a.server.tasks import InMemoryTaskStore

    sdk03_callee = example()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/"
    app = sdk03_callee.app(url)
    if executor is not None:
        handler = DefaultRequestHandler(agent_executor=executor, task_store=InMemoryTaskStore())
        app = A2AStarletteApplication(agent_card=sdk03_callee.agent_card(url), http_handler=handler)
    config = uvicorn.Config(app.build(), host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:  # noqa: ASYNC110 - uvicorn says so with a flag only
        await asyncio.sleep(0.01)
    try:
        yield url
    finally:
        server.should_exit = True
        await task


async def ask(
    url: str, text: str, task_id: str | None = None, seen: list[Any] | None = None
) -> list[object]:
    """Every update follow() makes of one streaming turn (and each event the client yields, in
    ``seen``)."""
    import httpx
    from a2a.client import ClientConfig, ClientFactory, minimal_agent_card
    from a2a.types import Message, Part, Role, TextPart

    from a2a_progress import follow

    async with httpx.AsyncClient(timeout=30) as http:
        card = await _card(http, url) or minimal_agent_card(url)
        client = ClientFactory(ClientConfig(httpx_client=http, streaming=True)).create(card)
        message = Message(
            role=Role.user, parts=[Part(root=TextPart(text=text))], message_id=f"m-{text}",
            task_id=task_id,
        )  # fmt: skip
        events = client.send_message(message)
        return [
            update async for update in follow(_kept(events, seen) if seen is not None else events)
        ]


async def _kept(events: AsyncIterator[Any], seen: list[Any]) -> AsyncIterator[Any]:
    async for event in events:
        seen.append(event)
        yield event


async def _card(http: object, url: str) -> object:
    from a2a.client import A2ACardResolver

    return await A2ACardResolver(http, url).get_agent_card()  # type: ignore[arg-type]


async def test_the_readme_callee_runs_unchanged_on_0_3(telemetry_03: object) -> None:
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from a2a_progress import ProgressUpdate, TurnOutcome
    from a2a_progress.otel import conventions as conv

    exporter: InMemorySpanExporter = telemetry_03  # type: ignore[assignment]
    seen: list[Any] = []
    async with served() as url:
        updates = await ask(url, "Why is the deploy blocked?", seen=seen)
    progress = [u for u in updates if isinstance(u, ProgressUpdate)]
    [outcome] = [u for u in updates if isinstance(u, TurnOutcome)]
    assert [(u.envelope.kind.value, u.envelope.status.value) for u in progress] == [
        ("thinking", "running"),
        ("tool_call", "running"),
        ("tool_call", "done"),
        ("tool_call", "running"),
        ("tool_call", "aborted"),
        ("text", "running"),
    ]
    assert not any(u.degraded for u in progress)
    assert outcome.state_label == "completed"
    assert outcome.reply == "The deploy is blocked: CI is red (2 failing tests)."
    spans = exporter.get_finished_spans()
    tools = [s for s in spans if s.name.startswith("execute_tool")]
    sides = sorted(
        (str(s.attributes.get("a2a.progress.observer")), s.name)  # type: ignore[union-attr]
        for s in tools
    )
    assert sides == [
        ("callee", "execute_tool ci_status"),
        ("callee", "execute_tool dashboard"),
    ], sides  # the caller writes no span of a call its callee records (mirror_spans off)
    assert len({s.context.trace_id for s in spans}) == 1  # type: ignore[union-attr]
    # The callee announced each call in the metadata of the status update that opened it (0.3's
    # dict), never in a Part's; the caller read it there, so it wrote no span of the call.
    attributes = [(s, dict(s.attributes or {})) for s in tools]
    callee = {s.name: s.context.span_id for s, a in attributes if a[conv.OBSERVER] == "callee"}  # type: ignore[union-attr]
    statuses = [update for _, update in seen if update is not None and hasattr(update, "status")]
    announced = [
        u.metadata[conv.WIRE_TOOL_SPAN]
        for u in statuses
        if u.metadata and conv.WIRE_TOOL_SPAN in u.metadata
    ]
    assert sorted(int(value.split("-")[2], 16) for value in announced) == sorted(callee.values())
    parts = [part for u in statuses if u.status.message for part in u.status.message.parts]
    assert not any(conv.WIRE_TOOL_SPAN in (part.root.metadata or {}) for part in parts)
    # The first status update also announced the callee's execution span (tfrs.turn), sampled:
    # its thinking and text are events of that span only, not of the caller's call span.
    ours = [s for s in spans if conv.A2A_METHOD_NAME in (s.attributes or {})]
    [execution] = [s for s in ours if s.kind.name == "SERVER"]
    [call] = [s for s in ours if s.kind.name == "CLIENT"]
    turns = [u.metadata.get(conv.WIRE_TURN_SPAN) for u in statuses if u.metadata]
    assert turns[0] is not None
    assert int(turns[0].split("-")[2], 16) == execution.context.span_id  # type: ignore[union-attr]
    assert turns[1:] == [None] * (len(turns) - 1)
    said = {conv.EVENT_THINKING, conv.EVENT_TEXT}
    assert [e.name for e in execution.events if e.name in said] == [
        conv.EVENT_THINKING,
        conv.EVENT_TEXT,
    ]
    assert [e.name for e in call.events if e.name in said] == []


async def test_a_0_2_callee_announcing_in_the_part_is_still_linked_on_0_3() -> None:
    # A callee that writes its updates the way a2a-progress 0.2.x did (its side not
    # instrumented): the announcement beside the envelope, in the Part's metadata.
    from a2a.server.agent_execution import AgentExecutor, RequestContext
    from a2a.server.events import EventQueue
    from a2a.types import Part, TaskState, TextPart
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from a2a_progress import open_task
    from a2a_progress.otel import A2AProgressInstrumentor
    from a2a_progress.otel import conventions as conv

    elsewhere = "00-" + "a" * 32 + "-" + "b" * 16 + "-01"

    def envelope(seq: int, status: str) -> str:
        return json.dumps(
            {"v": 1, "kind": "tool_call", "seq": seq, "status": status, "streamKey": "s1",
             "payload": {"tool": "search"}}
        )  # fmt: skip

    class OldCallee(AgentExecutor):
        async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
            updater = await open_task(context, event_queue)
            announced = {"tfrs": envelope(1, "running"), conv.WIRE_TOOL_SPAN: elsewhere}
            for metadata in (announced, {"tfrs": envelope(2, "done")}):
                part = Part(root=TextPart(text="search", metadata=metadata))
                await updater.update_status(TaskState.working, updater.new_agent_message([part]))
            await updater.complete()

        async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
            return None

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrumentor = A2AProgressInstrumentor()
    instrumentor.instrument(tracer_provider=provider, sides="caller", mirror_spans=True)
    try:
        async with served(OldCallee()) as url:
            await ask(url, "search")
    finally:
        instrumentor.uninstrument()
        provider.shutdown()
    [mirror] = [s for s in exporter.get_finished_spans() if s.name.startswith("execute_tool")]
    assert (mirror.attributes or {})[conv.MIRROR] is True
    assert [(link.context.trace_id, link.context.span_id) for link in mirror.links] == [
        (int("a" * 32, 16), int("b" * 16, 16))
    ]


async def test_a_follow_up_naming_only_the_task_continues_it_on_0_3() -> None:
    from a2a_progress import ProgressUpdate, TurnOutcome
    from support.multiturn_agent import AskingAgent

    agent = AskingAgent()
    async with served(agent) as url:
        first = await ask(url, "deploy it")
        [asked] = [u for u in first if isinstance(u, TurnOutcome)]
        assert (asked.state_label, asked.reply) == (
            "input_required",
            "Which environment: staging or prod?",
        )
        second = await ask(url, "staging", task_id=asked.task_id)
    [done] = [u for u in second if isinstance(u, TurnOutcome)]
    assert (done.state_label, done.reply) == ("completed", "Deployed to staging.")
    assert (done.task_id, done.context_id) == (asked.task_id, asked.context_id)
    tools = [u.call.tool for u in second if isinstance(u, ProgressUpdate) and u.opened and u.call]
    assert tools == ["deploy"]
    assert agent.context_ids == [asked.context_id, asked.context_id]
