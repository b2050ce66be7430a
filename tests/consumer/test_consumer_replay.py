"""Replays tell the truth: durations come from the times the agent recorded, never a made-up zero.

Real a2a-sdk servers on loopback, real clients. The agent's times are set by the script
(``support.stamped_agent``), so every duration below is exact. What a2a-sdk 1.3 keeps, checked
here: each live ``TaskStatusUpdateEvent`` and a Task's *current* status carry
``TaskStatus.timestamp``; a status moved into ``Task.history`` keeps only its ``Message``, which
has no time field. So a turn rebuilt from history has unknown (None) durations.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence

import pytest
from a2a.client import Client
from a2a.types.a2a_pb2 import (
    GetTaskRequest,
    Message,
    SubscribeToTaskRequest,
    TaskState,
)

from a2a_progress import (
    Envelope,
    Kind,
    ProgressAssembler,
    ProgressUpdate,
    Status,
    TurnOutcome,
    follow,
    poll_task,
)
from a2a_progress.consumer import Update
from a2a_progress.serving import create_client, serve_agent
from support.agents import user_message
from support.stamped_agent import StampedAgent, Step, at, posix

WORKING = TaskState.TASK_STATE_WORKING
COMPLETED = TaskState.TASK_STATE_COMPLETED


def tool(seq: int, status: Status = Status.RUNNING, name: str = "search") -> Envelope:
    return Envelope(Kind.TOOL_CALL, seq, {"tool": name, "tool_call_id": f"call-{name}"}, status)


def think(seq: int) -> Envelope:
    return Envelope(Kind.THINKING, seq, {"text": "hm"})


def stamped_script() -> list[Step]:
    """search runs 0.4 s, fetch 1.25 s; the turn's first WORKING is at 0.1, its end at 2.0."""
    return [
        Step(envelope=think(1), at=at(0.1)),
        Step(envelope=tool(2), at=at(0.2)),
        Step(envelope=tool(3, Status.DONE), at=at(0.6)),
        Step(envelope=tool(4, name="fetch"), at=at(0.6)),
        Step(envelope=tool(5, Status.DONE, name="fetch"), at=at(1.85)),
        Step(COMPLETED, text="found it", at=at(2.0)),
    ]


async def collect(source: AsyncIterator[Update]) -> tuple[list[ProgressUpdate], TurnOutcome]:
    updates = [update async for update in source]
    progress = [u for u in updates if isinstance(u, ProgressUpdate)]
    [outcome] = [u for u in updates if isinstance(u, TurnOutcome)]
    return progress, outcome


def calls(progress: Sequence[ProgressUpdate]) -> dict[str, tuple[float | None, float | None]]:
    """tool -> (started_at, duration) of each call, as the consumer reports it."""
    return {
        u.call.tool: (u.call.started_at, u.call.duration) for u in progress if u.opened and u.call
    }


async def finished_task(client: Client) -> str:
    """Run the turn to its end over a stream; its task id."""
    events = [event async for event in client.send_message(user_message())]
    return events[0].task.id


@pytest.fixture
async def stamped() -> AsyncIterator[tuple[Client, list[Step]]]:
    steps = stamped_script()
    async with (
        serve_agent(StampedAgent(steps), grpc_port=None) as served,
        create_client(served.card) as client,
    ):
        yield client, steps


async def test_a_live_stream_times_calls_and_the_turn_by_the_agent_clock(
    stamped: tuple[Client, list[Step]],
) -> None:
    client, _ = stamped
    progress, outcome = await collect(follow(client.send_message(user_message())))
    assert not any(u.replayed for u in progress)
    assert calls(progress) == {
        "search": (posix(0.2), pytest.approx(0.4)),
        "fetch": (posix(0.6), pytest.approx(1.25)),
    }
    assert not outcome.replayed
    assert (outcome.started_at, outcome.ended_at) == (posix(0.1), posix(2.0))
    assert outcome.duration == pytest.approx(1.9)


async def test_history_keeps_no_times_in_a2a_sdk(stamped: tuple[Client, list[Step]]) -> None:
    client, _ = stamped
    task_id = await finished_task(client)
    task = await client.get_task(GetTaskRequest(id=task_id))
    # The fact the replay rules rest on: a history entry is a bare Message, with no time field;
    # only the current status has one.
    assert "timestamp" not in {f.name for f in Message.DESCRIPTOR.fields}
    assert len(task.history) == 6  # the user's message and five working messages
    assert task.status.HasField("timestamp")


async def test_poll_task_of_a_finished_task_is_a_replay_with_unknown_durations(
    stamped: tuple[Client, list[Step]],
) -> None:
    client, _ = stamped
    task_id = await finished_task(client)
    progress, outcome = await collect(follow(poll_task(client, task_id, interval=0.01)))
    assert [u.envelope.seq for u in progress] == [1, 2, 3, 4, 5]
    assert all(u.replayed for u in progress)
    # Both calls ran and ended, but when is not in history: unknown, never 0.
    assert calls(progress) == {"search": (None, None), "fetch": (None, None)}
    assert all(u.call.ended_at is None for u in progress if u.call is not None)
    assert outcome.replayed
    assert outcome.terminal
    assert outcome.reply == "found it"
    assert (outcome.started_at, outcome.ended_at) == (None, posix(2.0))
    assert outcome.duration is None


async def test_subscribing_to_a_finished_task_is_refused_and_its_snapshot_is_a_replay(
    stamped: tuple[Client, list[Step]],
) -> None:
    client, _ = stamped
    task_id = await finished_task(client)
    assembler = ProgressAssembler()
    # a2a-sdk refuses to subscribe to a task that has ended; what a watcher then fetches is the
    # task, which the assembler replays (as `watch --subscribe` does).
    with pytest.raises(Exception, match="terminal"):
        await collect(
            follow(client.subscribe(SubscribeToTaskRequest(id=task_id)), assembler=assembler)
        )
    updates = assembler.feed(await client.get_task(GetTaskRequest(id=task_id)))
    progress = [u for u in updates if isinstance(u, ProgressUpdate)]
    [outcome] = [u for u in updates if isinstance(u, TurnOutcome)]
    assert len(progress) == 5
    assert all(u.replayed for u in progress)
    assert outcome.replayed
    assert outcome.duration is None


async def test_a_poll_that_sees_each_status_live_times_it() -> None:
    # Each step holds the turn, so every status is the task's current one when polled.
    steps = [
        Step(envelope=tool(1), at=at(1.0), hold=True),
        Step(envelope=tool(2, Status.DONE), at=at(1.75), hold=True),
        Step(COMPLETED, text="done", at=at(3.0)),
    ]
    async with (
        serve_agent(StampedAgent(steps), grpc_port=None) as served,
        create_client(served.card, streaming=False, polling=True) as client,
    ):
        [response] = [r async for r in client.send_message(user_message())]
        task_id = response.task.id
        assembler = ProgressAssembler()
        updates: list[Update] = []
        for step in steps:
            if step.hold:
                await step.reached.wait()
            updates += assembler.feed(await client.get_task(GetTaskRequest(id=task_id)))
            step.release.set()
        # The completed status, once the agent has written it, however long a loaded machine
        # takes (the test's timeout bounds it; 200 polls, ~2 s, then fed a working snapshot).
        while True:
            snapshot = await client.get_task(GetTaskRequest(id=task_id))
            if snapshot.status.state == COMPLETED:
                break
            await asyncio.sleep(0.01)
        updates += assembler.feed(snapshot)
    progress = [u for u in updates if isinstance(u, ProgressUpdate)]
    [outcome] = [u for u in updates if isinstance(u, TurnOutcome)]
    assert not any(u.replayed for u in progress)
    [call] = {id(u.call): u.call for u in progress if u.call is not None}.values()
    assert (call.started_at, call.ended_at) == (posix(1.0), posix(1.75))
    assert call.duration == pytest.approx(0.75)
    assert not outcome.replayed
    assert outcome.duration == pytest.approx(2.0)


async def test_statuses_without_times_give_unknown_durations_not_zero() -> None:
    steps = [
        Step(envelope=tool(1)),
        Step(envelope=tool(2, Status.DONE)),
        Step(COMPLETED, text="done"),
    ]
    async with (
        serve_agent(StampedAgent(steps), grpc_port=None) as served,
        create_client(served.card) as client,
    ):
        progress, outcome = await collect(follow(client.send_message(user_message())))
    [call] = {id(u.call): u.call for u in progress if u.call is not None}.values()
    assert call.end_reason is not None
    assert (call.started_at, call.ended_at, call.duration) == (None, None, None)
    assert (outcome.started_at, outcome.ended_at, outcome.duration) == (None, None, None)
