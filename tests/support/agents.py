"""A callee with a known turn (a tool that finishes, a tool that is aborted), and its caller side.

Used in-process by the OTLP export tests and, under ``opentelemetry-instrument``, by the zero-code
callee script, so every scenario checks the same spans.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Final

from a2a.types import AgentCard, SendMessageRequest, StreamResponse

from a2a_progress.envelope import Envelope, Kind
from a2a_progress.sdk.adapter import read_envelope
from a2a_progress.serving import create_client
from a2a_progress.serving import user_message as new_user_message
from support import scripted as step
from support.scripted import ScriptedAgent, script

THINKING: Final = "looking things up"
SEARCH_OUTPUT: Final = "3 results"
ABORT_REASON: Final = "upstream timed out"
REPLY: Final = "found it"
HOLD: Final = "hold"
"""A message with this text makes the turn stop inside the ``fetch`` tool until cancelled."""

# (kind, status, tool) of every envelope of the turn, in order.
EXPECTED_ENVELOPES: Final = [
    ("thinking", "running", None),
    ("tool_call", "running", "search"),
    ("text", "running", None),
    ("tool_call", "done", "search"),
    ("tool_call", "running", "fetch"),
    ("tool_call", "aborted", "fetch"),
]


class ToolAgent(ScriptedAgent):
    """Thinks, runs ``search`` (done, with a text event inside), then ``fetch`` (aborted), replies.

    Given :data:`HOLD` it stays inside ``fetch`` instead, until the task is cancelled (which
    ends ``fetch`` aborted, then CANCELED with no message).
    """

    def __init__(self) -> None:
        until_fetch = [
            step.thinking(THINKING),
            step.start("search", "call-search"),
            step.text(SEARCH_OUTPUT),
            step.done("call-search"),
            step.start("fetch", "call-fetch"),
        ]
        super().__init__(
            [*until_fetch, step.abort("call-fetch", ABORT_REASON), step.complete(REPLY)],
            cancel_open_calls=True,
            cancel_reply=None,
        )
        self.register(script(*until_fetch, step.wait(asyncio.Event())), HOLD)


def user_message(text: str = "find it") -> SendMessageRequest:
    """:func:`a2a_progress.serving.user_message`, asking the agent's usual question by default."""
    return new_user_message(text)


async def run_turn(card: AgentCard, text: str = "find it") -> list[StreamResponse]:
    """Stream one message to the agent ``card`` describes; every event the caller received."""
    async with create_client(card) as client:
        return [event async for event in client.send_message(user_message(text))]


def envelopes(events: Sequence[StreamResponse]) -> list[Envelope]:
    """The progress envelopes the caller received, in order."""
    return [e for e in map(read_envelope, events) if isinstance(e, Envelope)]


def summary(events: Sequence[StreamResponse]) -> list[tuple[str, str, str | None]]:
    """``(kind, status, tool)`` of each envelope received; compare with EXPECTED_ENVELOPES."""
    return [
        (e.kind.value, e.status.value, e.payload["tool"] if e.kind is Kind.TOOL_CALL else None)
        for e in envelopes(events)
    ]


def final_state(events: Sequence[StreamResponse]) -> int:
    """The task state the last event reports."""
    last = events[-1]
    if last.HasField("status_update"):
        return last.status_update.status.state
    return last.task.status.state
