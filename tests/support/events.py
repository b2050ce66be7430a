"""A2A events built by hand, as a peer's wire would carry them (real protobuf, the producer's
carrier), for tests that feed a consumer, a bridge or a relay without a network.

Every builder defaults to task ``t1`` in context ``ctx``; message ids are fresh (``m-N``) unless
given.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence

from a2a.types.a2a_pb2 import (
    Artifact,
    Message,
    Part,
    Role,
    StreamResponse,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)

from a2a_progress.envelope import Envelope, Kind, Status, encode
from a2a_progress.sdk.adapter import envelope_part

WORKING = TaskState.TASK_STATE_WORKING
_ids = itertools.count()


def think(seq: int, text: str = "hm", key: str | None = None) -> Envelope:
    return Envelope(Kind.THINKING, seq, {"text": text}, stream_key=key)


def call(
    seq: int, key: str | None = "c1", status: Status = Status.RUNNING, tool: str = "search"
) -> Envelope:
    payload = {"tool": tool} if key is None else {"tool": tool, "tool_call_id": key}
    return Envelope(Kind.TOOL_CALL, seq, payload, status, key)


def append(seq: int, key: str = "c1", chunk: str = "out\n") -> Envelope:
    return Envelope(
        Kind.TOOL_OUTPUT_APPEND, seq, {"tool": "search", "chunk": chunk, "tool_call_id": key},
        stream_key=key,
    )  # fmt: skip


def message(
    parts: Sequence[Part], *, task_id: str = "t1", role: int = Role.ROLE_AGENT, mid: str = ""
) -> Message:
    return Message(
        message_id=mid or f"m-{next(_ids)}",
        task_id=task_id,
        context_id="ctx",
        role=role,  # type: ignore[arg-type]
        parts=list(parts),
    )


def envelope_message(
    envelope: Envelope | str, fallback: str = "", *, task_id: str = "t1", mid: str = ""
) -> Message:
    wire = encode(envelope) if isinstance(envelope, Envelope) else envelope
    if not fallback:
        fallback = envelope.content or "fallback" if isinstance(envelope, Envelope) else "fallback"
    return message([envelope_part(wire, fallback)], task_id=task_id, mid=mid)


def status_event(
    state: int, msg: Message | None = None, *, task_id: str = "t1"
) -> TaskStatusUpdateEvent:
    status = TaskStatus(state=state)  # type: ignore[arg-type]
    if msg is not None:
        status.message.CopyFrom(msg)
    return TaskStatusUpdateEvent(task_id=task_id, context_id="ctx", status=status)


def working(
    envelope: Envelope | str, fallback: str = "", *, task_id: str = "t1", mid: str = ""
) -> StreamResponse:
    msg = envelope_message(envelope, fallback, task_id=task_id, mid=mid)
    return StreamResponse(status_update=status_event(WORKING, msg, task_id=task_id))


def plain(text: str, *, task_id: str = "t1", mid: str = "") -> StreamResponse:
    msg = message([Part(text=text)], task_id=task_id, mid=mid)
    return StreamResponse(status_update=status_event(WORKING, msg, task_id=task_id))


def terminal(state: int, reply: str | None = None, *, task_id: str = "t1") -> StreamResponse:
    msg = None if reply is None else message([Part(text=reply)], task_id=task_id)
    return StreamResponse(status_update=status_event(state, msg, task_id=task_id))


def artifact_event(
    artifact_id: str, *texts: str, append: bool = False, task_id: str = "t1"
) -> StreamResponse:
    event = TaskArtifactUpdateEvent(
        task_id=task_id,
        context_id="ctx",
        artifact=Artifact(artifact_id=artifact_id, parts=[Part(text=t) for t in texts]),
        append=append,
    )
    return StreamResponse(artifact_update=event)


def snapshot(
    state: int,
    history: Iterable[Message],
    current: Message | None = None,
    *,
    task_id: str = "t1",
    artifacts: Iterable[Artifact] = (),
) -> Task:
    task = Task(id=task_id, context_id="ctx", history=list(history), artifacts=list(artifacts))
    task.status.state = state  # type: ignore[assignment]
    if current is not None:
        task.status.message.CopyFrom(current)
    return task
