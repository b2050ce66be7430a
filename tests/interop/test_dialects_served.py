"""Dialects over the wire: a real a2a-sdk server speaking Gemini CLI's development-tool
extension (payloads built from its RFC) on every transport, and a hostile one flooding the
ADK dialect, read by follow() and by an instrumented caller."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from a2a.types import Message, Part, Role
from opentelemetry.sdk.trace import ReadableSpan

from a2a_progress import ProgressUpdate, TurnOutcome, follow
from a2a_progress.dialects.base import MAX_CALLS
from a2a_progress.dialects.gemini_cli import EXTENSION_URI
from a2a_progress.envelope import Kind, Status
from a2a_progress.serving import TRANSPORTS, Transport, create_client, serve_agent, user_message
from dialects.fixtures import adk_call, data_part, gemini_thought, gemini_tool_call, text_part
from support import scripted as step
from support.scripted import ScriptedAgent, Turn
from support.spans import caller_spans

ANSWER = "All 4 tests pass now."
WireUpdate = tuple[str, list[Part]]
"""One WORKING update of a dialect: the event's kind (for its metadata) and its parts."""


def gemini_turn() -> list[WireUpdate]:
    """The RFC's flow: thought, a shell call streaming output (every state resent whole), a
    failing edit, a cancelled call, then text. Updates repeat to show they are consumed once."""
    shell = "run_shell_command"
    ran = "4 items\n..F.\n"
    return [
        ("STATE_CHANGE", []),
        ("THOUGHT", [gemini_thought("Plan", "Run the tests, then fix what fails.")]),
        ("TOOL_CALL_UPDATE", [gemini_tool_call("t1", "PENDING", tool=shell)]),
        ("TOOL_CALL_UPDATE", [gemini_tool_call("t1", "EXECUTING", tool=shell)]),
        ("TOOL_CALL_UPDATE", [gemini_tool_call("t1", "EXECUTING", tool=shell, live="4 items\n")]),
        ("TOOL_CALL_UPDATE", [gemini_tool_call("t1", "EXECUTING", tool=shell, live="4 items\n")]),
        ("TOOL_CALL_UPDATE", [gemini_tool_call("t1", "EXECUTING", tool=shell, live=ran)]),
        ("TOOL_CALL_UPDATE", [gemini_tool_call("t1", "SUCCEEDED", tool=shell, live=ran)]),
        ("TOOL_CALL_UPDATE", [gemini_tool_call("t1", "SUCCEEDED", tool=shell, live=ran)]),
        ("TOOL_CALL_UPDATE", [gemini_tool_call("t2", "EXECUTING", tool="replace")]),
        ("TOOL_CALL_UPDATE", [gemini_tool_call("t2", "FAILED", tool="replace", error="no match")]),
        ("TOOL_CALL_UPDATE", [gemini_tool_call("t3", "PENDING", tool="write_file")]),
        ("TOOL_CALL_UPDATE", [gemini_tool_call("t3", "CANCELLED", tool="write_file")]),
        ("TEXT_CONTENT", [text_part(ANSWER)]),
    ]


def dialect_agent(
    updates: list[WireUpdate], metadata: Callable[[str], dict[str, Any]]
) -> ScriptedAgent:
    """The scripted agent sending WORKING updates of another dialect (parts plus the event's
    metadata), then COMPLETED with an empty message."""
    steps = [
        step.parts(parts, message_id=f"m{index}", metadata=metadata(kind))
        for index, (kind, parts) in enumerate(updates)
    ]
    return ScriptedAgent([*steps, completed_without_reply])


async def completed_without_reply(turn: Turn) -> None:
    await turn.updater.complete(Message(role=Role.ROLE_AGENT, message_id="end", parts=[]))


def gemini_metadata(kind: str) -> dict[str, Any]:
    return {EXTENSION_URI: {"kind": kind, "model": "gemini-2.5-pro"}}


async def run(served: Any, transport: Transport) -> list[Any]:
    async with create_client(served.card_for(transport)) as client:
        return [u async for u in follow(client.send_message(user_message("fix the tests")))]


@pytest.fixture
async def gemini_agent() -> AsyncIterator[Any]:
    async with serve_agent(dialect_agent(gemini_turn(), gemini_metadata), name="gemini") as served:
        yield served


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_gemini_cli_calls_thoughts_and_output_over_every_transport(
    gemini_agent: Any, transport: Transport
) -> None:
    with caller_spans() as exporter:
        updates = await run(gemini_agent, transport)

    progress = [u for u in updates if isinstance(u, ProgressUpdate)]
    assert all(u.dialect == "gemini-cli" and not u.degraded for u in progress)
    shape = [(u.envelope.kind.value, u.envelope.status.value, u.envelope.content) for u in progress]
    assert shape == [
        ("thinking", "running", "Plan\nRun the tests, then fix what fails."),
        ("tool_call", "running", None),
        ("tool_output_append", "running", "4 items\n"),
        ("tool_output_append", "running", "..F.\n"),
        ("tool_call", "done", None),
        ("tool_call", "running", None),
        ("tool_call", "aborted", None),
        ("tool_call", "running", None),
        ("tool_call", "aborted", None),
        ("text", "running", ANSWER),
    ]
    closed = {call.tool_call_id: call for u in progress for call in u.closed}
    assert {key: call.status for key, call in closed.items()} == {
        "t1": Status.DONE,
        "t2": Status.ABORTED,
        "t3": Status.ABORTED,
    }
    reasons = [u.envelope.payload.get("reason") for u in progress if u.closed]
    assert reasons == [None, "no match", "cancelled"]
    outcome = updates[-1]
    assert isinstance(outcome, TurnOutcome)
    assert outcome.succeeded

    spans: list[ReadableSpan] = list(exporter.get_finished_spans())
    [call_span] = [s for s in spans if s.name == "SendStreamingMessage"]
    tools = sorted(
        (s for s in spans if s.name.startswith("execute_tool")),
        key=lambda s: str((s.attributes or {})["gen_ai.tool.call.id"]),
    )
    assert [s.name for s in tools] == [
        "execute_tool run_shell_command",
        "execute_tool replace",
        "execute_tool write_file",
    ]
    for span, call_id in zip(tools, ("t1", "t2", "t3"), strict=True):
        attributes = dict(span.attributes or {})
        assert attributes["gen_ai.tool.call.id"] == call_id
        assert attributes["a2a.progress.dialect"] == "gemini-cli"
        assert span.parent is not None
        assert span.parent.span_id == call_span.context.span_id
    assert [s.status.status_code.name for s in tools] == ["UNSET", "ERROR", "ERROR"]
    output_events = [e for e in tools[0].events if e.name == "a2a.progress.output"]
    assert [dict(e.attributes or {})["a2a.progress.content"] for e in output_events] == [
        "4 items\n",
        "..F.\n",
    ]


def flood() -> list[WireUpdate]:
    """A hostile peer in the ADK dialect: more distinct calls than a turn tracks, and junk."""
    steps: list[WireUpdate] = []
    for batch in range(0, MAX_CALLS + 512, 64):
        steps.append(("", [adk_call(f"flood-{batch + i}", "spam") for i in range(64)]))
        junk = [data_part({"junk": i}, {"adk_type": "function_call"}) for i in range(64)]
        steps.append(("", junk))
    return steps


async def test_a_flood_of_dialect_calls_is_capped_in_updates_and_spans() -> None:
    agent = dialect_agent(flood(), lambda _kind: {"adk_app_name": "flood"})
    async with serve_agent(agent, name="flood") as served:
        with caller_spans() as exporter:
            updates = await run(served, "grpc")
    opened = [u for u in updates if isinstance(u, ProgressUpdate) and u.opened]
    assert len(opened) == MAX_CALLS
    assert all(u.envelope.kind is Kind.TOOL_CALL for u in opened)
    tools = [s for s in exporter.get_finished_spans() if s.name.startswith("execute_tool")]
    assert len(tools) == MAX_CALLS
    assert isinstance(updates[-1], TurnOutcome)
    assert updates[-1].succeeded
