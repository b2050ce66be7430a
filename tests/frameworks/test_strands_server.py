"""Strands' own A2A server (``strands-agents[a2a]``, on a2a-sdk 0.3) with a scripted model, served
on 127.0.0.1, called by follow(), by ``a2a-progress watch --json`` and by an instrumented caller.

What this pins down: Strands streams the model's text and nothing of its tool calls (no part, no
metadata), in either of its two stream modes, so a caller sees the text as progress, the answer
as the reply, and no tool call at all. Runs where strands-agents is installed (make test-sdk03);
elsewhere it is skipped. The command line, 1.x only, watches it from test_strands_watch.py.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest

pytest.importorskip("strands.multiagent.a2a", reason="needs strands-agents[a2a]")

from frameworks.strands_agent import ANSWER, DASHBOARD_ERROR, PLAN, serve_strands_agent

QUESTION = "Why is the deploy blocked?"
MODES = [False, True]
MODE_IDS = ["status messages", "artifact chunks"]
TWO_TURNS = ["ci_status", "dashboard"] * 2  # ask() runs the turn twice: raw, then followed


async def ask(url: str) -> tuple[list[Any], list[Any]]:
    """The raw stream of one streaming turn, and what follow() makes of the same turn."""
    import httpx
    from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
    from a2a.types import Message, Part, Role, TextPart

    from a2a_progress import follow

    async with httpx.AsyncClient(timeout=30) as http:
        card = await A2ACardResolver(http, url).get_agent_card()
        client = ClientFactory(ClientConfig(httpx_client=http, streaming=True)).create(card)

        def message() -> Message:
            parts = [Part(root=TextPart(text=QUESTION))]
            return Message(role=Role.user, parts=parts, message_id="m-1")

        raw = [event async for event in client.send_message(message())]
        followed = [update async for update in follow(client.send_message(message()))]
    return raw, followed


def dumped(event: Any) -> dict[str, Any]:
    """One stream event as the JSON the server sent (the task snapshot for the first)."""
    task, update = event
    return (update or task).model_dump(mode="json", exclude_none=True)  # type: ignore[no-any-return]


@pytest.mark.parametrize("compliant", MODES, ids=MODE_IDS)
async def test_strands_streams_text_and_no_tool_call(compliant: bool) -> None:
    from a2a_progress import ProgressUpdate, TurnOutcome

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # Strands warns about its legacy mode
        async with serve_strands_agent(compliant=compliant) as served:
            raw, followed = await ask(served.url)
    assert served.calls == TWO_TURNS  # both tools ran in each turn (the second failed)
    events = [dumped(event) for event in raw]
    assert [event["kind"] for event in events] == (
        ["task", "artifact-update", "artifact-update", "artifact-update", "status-update"]
        if compliant
        else ["task", "status-update", "status-update", "artifact-update", "status-update"]
    )
    wire = json.dumps(events[1:])
    for absent in ("ci_status", "dashboard", DASHBOARD_ERROR, "tooluse_", "metadata", '"data"'):
        assert absent not in wire, absent
    assert PLAN in wire
    assert ANSWER in wire

    progress = [u for u in followed if isinstance(u, ProgressUpdate)]
    [outcome] = [u for u in followed if isinstance(u, TurnOutcome)]
    assert outcome.state_label == "completed"
    assert all(u.call is None and u.dialect is None for u in progress)
    shown = [(u.envelope.kind.value, u.envelope.content, u.degraded) for u in progress]
    if compliant:  # every chunk is the one answer artifact: the plan is part of the reply
        assert shown == []
        assert outcome.reply == PLAN + ANSWER
    else:  # each text is a WORKING message without an envelope: plain (degraded) progress
        assert shown == [("text", PLAN, True), ("text", ANSWER, True)]
        assert outcome.reply.strip() == ANSWER


async def test_an_instrumented_caller_sees_the_turn_and_no_tool_span() -> None:
    from support.spans import caller_spans

    with caller_spans() as exporter, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        async with serve_strands_agent() as served:
            await ask(served.url)
    spans = exporter.get_finished_spans()
    calls = [s for s in spans if s.name == "SendStreamingMessage"]
    assert len(calls) == 2  # the raw turn and the followed one
    assert not [s for s in spans if s.name.startswith("execute_tool")]
    assert served.calls == TWO_TURNS
