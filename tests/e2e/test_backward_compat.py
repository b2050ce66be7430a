"""A caller that knows nothing of envelopes still reads every progress update as text (option A).

The client here is plain a2a-sdk: no a2a-progress code between it and the wire.
"""

from __future__ import annotations

import re

import grpc.aio
import httpx
from a2a.client import ClientConfig, ClientFactory
from a2a.helpers.proto_helpers import get_message_text
from a2a.types import StreamResponse, TaskState

from a2a_progress.serving import user_message

from .conftest import (
    LONG,
    MODULE_LOOP,
    REPLY_RECEIVED,
    TRICKY,
    ScriptedAgent,
    Wire,
    guarded,
    stress_script,
)

pytestmark = MODULE_LOOP


async def plain_sdk_stream(wire: Wire, text: str) -> list[StreamResponse]:
    async with httpx.AsyncClient() as http:
        config = ClientConfig(
            httpx_client=http,
            grpc_channel_factory=grpc.aio.insecure_channel,
            supported_protocol_bindings=[wire.card.supported_interfaces[0].protocol_binding],
        )
        client = ClientFactory(config).create(wire.card)
        try:
            return [event async for event in client.send_message(user_message(text))]
        finally:
            await client.close()


async def test_plain_client_reads_the_text_fallback(agent: ScriptedAgent, wire: Wire) -> None:
    events = await guarded(plain_sdk_stream(wire, agent.register(stress_script)))

    updates = [event.status_update for event in events if event.HasField("status_update")]
    working = [u for u in updates if u.status.state == TaskState.TASK_STATE_WORKING]
    texts = [get_message_text(update.status.message) for update in working]
    turn = agent.turns[updates[0].task_id]
    # What the producer wrote as the fallback, one readable text per update, all of it.
    assert texts == [message.parts[0].text for message in turn.working_messages()]
    assert all(texts)
    assert texts[0] == re.sub("[\x85\u2028\u2029]", "\n", TRICKY)
    assert "".join(text for text in texts if text in LONG) == LONG
    assert "Calling tool tool call-甲" in texts
    assert "Tool summarize finished" in texts
    assert updates[-1].status.state == TaskState.TASK_STATE_COMPLETED
    assert get_message_text(updates[-1].status.message) == REPLY_RECEIVED
