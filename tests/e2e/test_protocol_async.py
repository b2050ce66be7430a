"""Asynchronous calls (spec L3, E5, E6): the same envelopes through SubscribeToTask and GetTask."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, AsyncIterator
from typing import TypeVar

import pytest
from a2a.client import Client
from a2a.types import GetTaskRequest, StreamResponse, SubscribeToTaskRequest, Task, TaskState

from a2a_progress import Envelope, Kind, ProgressAssembler, Status, follow, poll_task
from a2a_progress.serving import create_client, user_message

from .conftest import (
    MODULE_LOOP,
    ScriptedAgent,
    Turn,
    Wire,
    assert_unique,
    collect,
    decoded,
    envelope_strings,
    envelopes_of,
    guarded,
    outcome_of,
    progress_of,
    tap,
    wire_envelopes,
)

pytestmark = MODULE_LOOP

E = TypeVar("E", StreamResponse, Task)

REPLY = "async reply"


class PausedTurn:
    """A script that sends some progress, waits for the test, then finishes the turn."""

    def __init__(self) -> None:
        self.paused = asyncio.Event()
        self.resume = asyncio.Event()

    async def __call__(self, turn: Turn) -> None:
        async with turn.emitter(seq_start=500) as progress:
            await progress.text("queued the job")
            call = await progress.tool_call("build", "build-1")
            self.paused.set()
            await self.resume.wait()
            await progress.thinking("the build is green")
            await call.done()
            await progress.text("packaging\nuploading")
            await progress.complete(REPLY)


async def dispatch(wire: Wire, name: str, *, polling: bool) -> str:
    """Send without waiting for the turn: the answer is the SUBMITTED task. Returns its id."""
    async with create_client(wire.card, streaming=False, polling=polling) as client:
        request = user_message(name, return_immediately=not polling)
        events = [event async for event in client.send_message(request)]
    assert len(events) == 1
    assert events[0].WhichOneof("payload") == "task"
    assert events[0].task.status.state == TaskState.TASK_STATE_SUBMITTED
    return events[0].task.id


async def resume_after_first(events: AsyncIterable[E], resume: asyncio.Event) -> AsyncIterator[E]:
    """Let the paused turn go on once the first snapshot is here, so that nothing the turn
    sends next can happen before the subscription (or the first poll) saw the turn so far."""
    async for event in events:
        yield event
        resume.set()


@pytest.mark.parametrize("polling", [False, True], ids=["return_immediately", "polling_client"])
async def test_subscribe_delivers_the_rest_of_the_turn(
    agent: ScriptedAgent, wire: Wire, polling: bool
) -> None:
    script = PausedTurn()
    task_id = await guarded(dispatch(wire, agent.register(script), polling=polling))
    await guarded(script.paused.wait())
    assembler = ProgressAssembler()
    async with create_client(wire.card) as client:
        # What the caller learned before subscribing: the turn so far, from GetTask.
        before = assembler.feed(await client.get_task(GetTaskRequest(id=task_id)))
        seen: list[StreamResponse] = []
        stream = client.subscribe(SubscribeToTaskRequest(id=task_id))
        after = await guarded(
            collect(
                follow(resume_after_first(tap(stream, seen), script.resume), assembler=assembler)
            )
        )

    updates = before + after
    outcome = outcome_of(updates)
    assert outcome.task_id == task_id
    assert outcome.succeeded
    assert outcome.reply == REPLY
    progress = progress_of(updates)
    sent = agent.turns[task_id].sent()
    # Every envelope exactly once, in order, although GetTask and the subscription's first
    # snapshot both carried the open tool call.
    assert_unique(progress)
    assert envelopes_of(progress) == decoded(sent)
    assert [update.envelope.kind for update in progress_of(before)] == [Kind.TEXT, Kind.TOOL_CALL]
    assert seen[0].WhichOneof("payload") == "task"
    assert envelope_strings(seen[0].task.history) == sent[:1]
    assert wire_envelopes(seen[:1]) == sent[1:2]
    assert wire_envelopes(seen[1:]) == sent[2:]
    calls = {update.call.key: update.call for update in progress if update.call is not None}
    assert [call.status for call in calls.values()] == [Status.DONE]


async def finished_turn(agent: ScriptedAgent, wire: Wire) -> Turn:
    script = PausedTurn()
    script.resume.set()
    async with create_client(wire.card) as client:
        updates = await guarded(
            collect(follow(client.send_message(user_message(agent.register(script)))))
        )
    turn = agent.turns[outcome_of(updates).task_id]
    await guarded(turn.finished.wait())
    return turn


async def replay(client: Client, task_id: str, history_length: int | None) -> list[Envelope]:
    """The progress ``poll_task`` replays from the finished turn's history."""
    updates = await guarded(
        collect(follow(poll_task(client, task_id, history_length=history_length)))
    )
    outcome = outcome_of(updates)
    assert outcome.succeeded
    assert outcome.reply == REPLY
    return envelopes_of(progress_of(updates))


async def test_poll_task_replays_progress_from_history(agent: ScriptedAgent, wire: Wire) -> None:
    turn = await finished_turn(agent, wire)
    expected = decoded(turn.sent())
    assert len(expected) == 5
    async with create_client(wire.card) as client:
        assert await replay(client, turn.task_id, None) == expected
        # history_length keeps the last N messages of the history: here all are progress.
        assert await replay(client, turn.task_id, 2) == expected[-2:]
        assert await replay(client, turn.task_id, 4) == expected[-4:]
        # Zero: no history in 1.0, but "unlimited" in v0.3.
        assert await replay(client, turn.task_id, 0) == (expected if wire.v0_3 else [])


async def test_polling_a_running_turn_consumes_each_envelope_once(
    agent: ScriptedAgent, wire: Wire
) -> None:
    script = PausedTurn()
    task_id = await guarded(dispatch(wire, agent.register(script), polling=False))
    await guarded(script.paused.wait())
    async with create_client(wire.card) as client:
        snapshots = resume_after_first(poll_task(client, task_id, interval=0.01), script.resume)
        updates = await guarded(collect(follow(snapshots)))

    outcome = outcome_of(updates)
    assert outcome.succeeded
    progress = progress_of(updates)
    # Each snapshot repeats the history before it; the assembler consumed every envelope once.
    assert_unique(progress)
    assert envelopes_of(progress) == decoded(agent.turns[task_id].sent())
