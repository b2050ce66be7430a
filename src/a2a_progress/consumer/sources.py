"""Event sources for the assembler: `follow` any client call, `poll_task` a task."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterable, Iterable
from typing import Any

from a2a_progress.consumer.assembler import ProgressAssembler
from a2a_progress.consumer.outcomes import INTERRUPTED_STATES, TERMINAL_STATES, EndReason
from a2a_progress.consumer.updates import Update


async def follow(
    events: AsyncIterable[Any],
    *,
    assembler: ProgressAssembler | None = None,
    dialects: str | Iterable[str] | None = None,
) -> AsyncGenerator[Update, None]:
    """Yield progress and the outcome of a client call, for any event source.

    ``events`` is ``client.send_message(...)``, ``client.subscribe(...)`` or
    `poll_task`. If the source ends with no terminal state, a final
    `TurnOutcome` with ``terminal=False`` closes the open calls ``stream_closed``.
    Errors from the source propagate. ``dialects`` picks the dialects of the assembler
    ``follow`` makes (see `ProgressAssembler`); give either it or ``assembler``.

    Examples:
        With a client: ``async for item in follow(client.send_message(request)): ...``
        (``examples/caller.py``). Any async iterable of events works the same way:

        >>> from a2a.types import Message, Role, TaskState, TaskStatus, TaskStatusUpdateEvent
        >>> from a2a_progress import Envelope, Kind, Status, encode, envelope_part
        >>> def update(state, seq=None, kind=Kind.TEXT, payload=None, status=Status.RUNNING):
        ...     parts = []  # a WORKING update carries an envelope; a final one, its reply
        ...     if seq is not None:
        ...         envelope = Envelope(kind, seq, payload, status, stream_key="call-1")
        ...         parts = [envelope_part(encode(envelope), "fallback text")]
        ...     message = Message(message_id=f"m{seq}", role=Role.ROLE_AGENT, parts=parts)
        ...     return TaskStatusUpdateEvent(
        ...         task_id="task-1", context_id="ctx-1",
        ...         status=TaskStatus(state=state, message=message))
        >>> WORKING, COMPLETED = TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_COMPLETED
        >>> search = {"tool": "search", "tool_call_id": "call-1"}
        >>> import asyncio
        >>> async def stream():  # stands in for client.send_message(request)
        ...     yield update(WORKING, 1, Kind.THINKING, {"text": "Check CI first."})
        ...     yield update(WORKING, 2, Kind.TOOL_CALL, search)
        >>> async def watch():
        ...     return [item async for item in follow(stream())]
        >>> *progress, outcome = asyncio.run(watch())
        >>> [update.envelope.kind.value for update in progress]
        ['thinking', 'tool_call']
        >>> outcome.terminal, [call.end_reason.value for call in outcome.closed]
        (False, ['stream_closed'])
    """
    if assembler is not None and dialects is not None:
        raise ValueError("give dialects to the ProgressAssembler passed as assembler=")
    assembler = assembler or ProgressAssembler(dialects=dialects)
    # Only the turns of this source are closed at its end: a shared assembler may be following
    # other sources' turns, which go on.
    task_ids: set[str] = set()
    stream = _as_generator(events)
    async with contextlib.aclosing(stream):
        async for event in stream:
            updates = assembler.feed(event)
            if assembler.last_event is not None:
                task_ids.add(assembler.last_event.task_id)
            for update in updates:
                yield update
    for outcome in assembler.close(EndReason.STREAM_CLOSED, task_ids=task_ids):
        yield outcome


async def _as_generator(
    events: AsyncIterable[Any],
) -> AsyncGenerator[Any, None]:
    iterator = aiter(events)
    try:
        async for event in iterator:
            yield event
    finally:
        close = getattr(iterator, "aclose", None)
        if close is not None:
            await close()


async def poll_task(
    client: Any,
    task_id: str,
    *,
    interval: float = 1.0,
    history_length: int | None = None,
) -> AsyncGenerator[Any, None]:
    """Yield ``GetTask`` snapshots (the SDK's ``Task``) every ``interval`` seconds until the
    turn ends.

    The coarse replay channel: progress comes from ``Task.history``, truncated by
    ``history_length``. Feed it to `follow`. Progress read from history is marked
    ``replayed`` and has no times (a2a-sdk keeps none for history messages).

    Examples:
        A coroutine's body, with ``client`` from `a2a_progress.serving.create_client`:

        >>> async def replay(client, task_id):
        ...     async for item in follow(poll_task(client, task_id, interval=0.5)):
        ...         print(item)
    """
    from a2a_progress.sdk.adapter import get_task, view_event

    while True:
        task = await get_task(client, task_id, history_length)
        yield task
        state = view_event(task).state
        if state in TERMINAL_STATES or state in INTERRUPTED_STATES:
            return
        await asyncio.sleep(interval)
