"""Turns that do not go to plan: cancelled, crashed, abandoned, or sent by a third-party callee."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator

import pytest
from a2a.types import CancelTaskRequest, GetTaskRequest, Part, TaskState
from a2a.utils.errors import A2AError

from a2a_progress import (
    EndReason,
    Kind,
    ProgressAssembler,
    ProgressUpdate,
    RejectReason,
    Status,
    follow,
    poll_task,
)
from a2a_progress.consumer import Update
from a2a_progress.serving import create_client, user_message

from .conftest import (
    MODULE_LOOP,
    ScriptedAgent,
    Turn,
    Wire,
    collect,
    decoded,
    envelopes_of,
    guarded,
    outcome_of,
    progress_of,
)

pytestmark = MODULE_LOOP


async def test_cancel_mid_tool_aborts_the_open_call_before_canceled(
    agent: ScriptedAgent, wire: Wire
) -> None:
    inside = asyncio.Event()

    async def script(turn: Turn) -> None:
        async with turn.emitter() as progress:
            await progress.text("starting the deploy")
            async with progress.tool_call("deploy", "deploy-1"):
                inside.set()
                await asyncio.Event().wait()  # until cancelled

    assembler = ProgressAssembler()
    updates: list[Update] = []
    call_seen = asyncio.Event()

    async def consume(client_events: AsyncIterator[Update]) -> None:
        async for update in client_events:
            updates.append(update)
            if isinstance(update, ProgressUpdate) and update.opened:
                call_seen.set()

    async with create_client(wire.card) as client:
        stream = follow(
            client.send_message(user_message(agent.register(script))), assembler=assembler
        )
        consumer = asyncio.create_task(consume(stream))
        await guarded(call_seen.wait())
        assert inside.is_set()
        task_id = updates[0].task_id
        canceled = await guarded(client.cancel_task(CancelTaskRequest(id=task_id)))
        await guarded(consumer)
        stored = await client.get_task(GetTaskRequest(id=task_id))

    assert canceled.status.state == TaskState.TASK_STATE_CANCELED
    assert stored.status.state == TaskState.TASK_STATE_CANCELED
    turn = agent.turns[task_id]
    await guarded(turn.finished.wait())
    sent = decoded(turn.sent())
    # The producer closed the call exactly once, aborted, and only then said CANCELED.
    assert [(e.kind, e.status) for e in sent] == [
        (Kind.TEXT, Status.RUNNING),
        (Kind.TOOL_CALL, Status.RUNNING),
        (Kind.TOOL_CALL, Status.ABORTED),
    ]
    assert turn.states()[-1] == TaskState.TASK_STATE_CANCELED
    assert turn.states().count(TaskState.TASK_STATE_CANCELED) == 1

    # The caller saw the same, and the terminal state closed the turn with nothing left open.
    outcome = outcome_of(updates)
    assert outcome.state == TaskState.TASK_STATE_CANCELED
    assert outcome.terminal
    assert outcome.reply == "canceled by the caller"
    progress = progress_of(updates)
    assert envelopes_of(progress) == sent
    call = progress[-1].call
    assert call is not None
    assert call.key == "deploy-1"
    assert progress[-1].closed == (call,)
    assert call.end_reason in {EndReason.ABORTED, EndReason.TURN_CANCELED}
    assert call.status is Status.ABORTED
    assert assembler.open_calls(task_id) == []


async def test_executor_crash_fails_the_call_after_delivering_its_progress(
    agent: ScriptedAgent, wire: Wire
) -> None:
    async def script(turn: Turn) -> None:
        async with turn.emitter() as progress:
            await progress.text("fetching")
            await progress.tool_call("fetch", "fetch-1")
            raise RuntimeError("the fetch tool crashed")

    updates: list[Update] = []
    async with create_client(wire.card) as client:
        stream = follow(client.send_message(user_message(agent.register(script))))
        with pytest.raises(A2AError):
            await guarded(collect(stream, into=updates))
        task_id = updates[0].task_id
        turn = agent.turns[task_id]
        await guarded(turn.finished.wait())
        stored = await guarded(collect(follow(poll_task(client, task_id, interval=0.01))))

    assert outcome_of(stored).state == TaskState.TASK_STATE_FAILED
    sent = decoded(turn.sent())
    # `async with ProgressEmitter` aborted the open call while the queue still took events.
    assert [(e.kind, e.status) for e in sent] == [
        (Kind.TEXT, Status.RUNNING),
        (Kind.TOOL_CALL, Status.RUNNING),
        (Kind.TOOL_CALL, Status.ABORTED),
    ]
    assert sent[-1].payload["reason"] == "turn failed: RuntimeError"
    # Everything sent before the crash reached the caller; no outcome did (follow raised).
    assert all(isinstance(update, ProgressUpdate) for update in updates)
    assert envelopes_of(progress_of(updates)) == sent


async def test_abandoned_stream_leaves_the_turn_running_and_the_server_healthy(
    agent: ScriptedAgent, wire: Wire
) -> None:
    resume = asyncio.Event()

    async def script(turn: Turn) -> None:
        async with turn.emitter() as progress:
            await progress.text("step one")
            await resume.wait()
            async with progress.tool_call("index", "index-1"):
                await progress.text("step two")
            await progress.complete("done anyway")

    async with create_client(wire.card) as client:
        stream = follow(client.send_message(user_message(agent.register(script))))
        async with contextlib.aclosing(stream):
            first = await guarded(anext(stream))
        assert isinstance(first, ProgressUpdate)
        assert first.envelope.content == "step one"
        resume.set()
        turn = agent.turns[first.task_id]
        await guarded(turn.finished.wait())
        replayed = await guarded(collect(follow(poll_task(client, first.task_id, interval=0.01))))

    outcome = outcome_of(replayed)
    assert outcome.succeeded
    assert outcome.reply == "done anyway"
    assert envelopes_of(progress_of(replayed)) == decoded(turn.sent())
    assert len(turn.sent()) == 4

    async def quick(turn: Turn) -> None:
        await turn.emitter().complete("still here")

    async with create_client(wire.card) as client:
        again = await guarded(
            collect(follow(client.send_message(user_message(agent.register(quick)))))
        )
    assert outcome_of(again).reply == "still here"


# A third-party callee: plain-text working updates, and envelopes no v1 reader can use.
VALID = json.dumps(
    {"v": 1, "kind": "text", "seq": 7, "status": "running", "payload": {"text": "a real one"}}
)
THIRD_PARTY: list[tuple[str, dict[str, object] | None, RejectReason | None]] = [
    ("plain progress, no metadata", None, None),
    ("metadata, but no envelope", {"trace": "abc"}, None),
    ("garbage envelope", {"tfrs": "{not json"}, RejectReason.NOT_JSON),
    ("a v2 envelope", {"tfrs": VALID.replace('"v": 1', '"v": 2')}, RejectReason.UNKNOWN_VERSION),
    ("a number for an envelope", {"tfrs": 42}, RejectReason.NOT_A_STRING),
    ("an object for an envelope", {"tfrs": json.loads(VALID)}, RejectReason.NOT_A_STRING),
    ("a null envelope", {"tfrs": None}, RejectReason.NOT_A_STRING),
    (
        "an envelope of an unknown kind",
        {"tfrs": VALID.replace('"text", "seq"', '"video", "seq"')},
        RejectReason.BAD_KIND,
    ),
    ('unicode 中文 🎉 "quoted"', None, None),
]
REAL_AT = 4
"""Where a usable envelope sits among the unusable ones."""


async def test_third_party_updates_degrade_to_text_and_nothing_is_lost(
    agent: ScriptedAgent, wire: Wire
) -> None:
    async def script(turn: Turn) -> None:
        updater = turn.updater
        parts = [Part(text=text, metadata=metadata) for text, metadata, _ in THIRD_PARTY]
        parts.insert(REAL_AT, Part(text="fallback", metadata={"tfrs": VALID}))
        for part in parts:
            await updater.update_status(
                TaskState.TASK_STATE_WORKING, message=updater.new_agent_message([part])
            )
        await updater.complete(updater.new_agent_message([Part(text="third-party reply")]))

    async with create_client(wire.card) as client:
        updates = await guarded(
            collect(follow(client.send_message(user_message(agent.register(script)))))
        )

    assert outcome_of(updates).reply == "third-party reply"
    progress = progress_of(updates)
    real = progress.pop(REAL_AT)
    assert not real.degraded
    assert real.envelope.content == "a real one"
    assert len(progress) == len(THIRD_PARTY)
    for update, (text, _, reason) in zip(progress, THIRD_PARTY, strict=True):
        assert update.degraded
        assert update.envelope.kind is Kind.TEXT
        assert update.envelope.content == text
        assert update.fallback == text
        assert (update.rejected.reason if update.rejected else None) is reason
