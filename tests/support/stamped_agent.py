"""The scripted agent playing a fixed script of status updates, each stamped with a chosen
agent time.

Replay tests compare durations with the times the agent recorded, so the times are set, not
measured: a step's ``at`` goes into ``TaskStatus.timestamp`` through ``TaskUpdater`` (a step with
``at=None`` is sent with no timestamp at all). A step can ``hold`` the turn until the test
releases it, so a poll sees it as the task's current status.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from a2a.types.a2a_pb2 import Part, TaskState, TaskStatus, TaskStatusUpdateEvent

from a2a_progress.envelope import Envelope, encode
from a2a_progress.sdk.adapter import envelope_part
from support import scripted
from support.scripted import ScriptedAgent, Turn

BASE = datetime(2026, 1, 1, 10, 0, 0, tzinfo=UTC)
"""The agent clock's zero in these scripts."""


def at(seconds: float) -> str:
    """The ISO 8601 time ``seconds`` after :data:`BASE`, as ``TaskUpdater`` takes it."""
    return (BASE + timedelta(seconds=seconds)).isoformat()


def posix(seconds: float) -> float:
    """The POSIX time ``seconds`` after :data:`BASE`, as the consumer reports it."""
    return (BASE + timedelta(seconds=seconds)).timestamp()


@dataclass
class Step:
    """One status update: ``envelope`` (else plain ``text``) at agent time ``at``."""

    state: int = TaskState.TASK_STATE_WORKING
    envelope: Envelope | None = None
    text: str = "progress"
    at: str | None = None
    hold: bool = False
    reached: asyncio.Event = field(default_factory=asyncio.Event)
    release: asyncio.Event = field(default_factory=asyncio.Event)


def stamped(step: Step) -> list[scripted.Step]:
    """The scripted agent's steps that send ``step`` (and hold there, if it says so)."""

    async def send(turn: Turn) -> None:
        part = (
            envelope_part(encode(step.envelope), step.text)
            if step.envelope is not None
            else Part(text=step.text)
        )
        message = turn.updater.new_agent_message(parts=[part])
        if step.at is not None:
            await turn.updater.update_status(step.state, message, timestamp=step.at)
            return
        # TaskUpdater always stamps a time; an update without one is built by hand.
        status = TaskStatus(state=step.state)
        status.message.CopyFrom(message)
        await turn.queue.enqueue_event(
            TaskStatusUpdateEvent(task_id=turn.task_id, context_id=turn.context_id, status=status)
        )

    if not step.hold:
        return [send]
    return [send, scripted.reached(step.reached), scripted.wait(step.release)]


class StampedAgent(ScriptedAgent):
    """The scripted agent: opens its task (SUBMITTED, no time), then sends ``steps`` in order."""

    def __init__(self, steps: Sequence[Step]) -> None:
        super().__init__([send for step in steps for send in stamped(step)])
