"""The a2a-sdk 0.3.x adapter (pydantic types): the same names as `v1`, for 0.3's idioms.

Parts wrap a ``TextPart`` / ``DataPart`` / ``FilePart`` in ``root``; metadata is a plain dict;
states are strings (``"working"``, ``"input-required"``); a status time is an ISO 8601 string;
a client yields ``(Task, update)`` pairs or a Message. Imported through
`a2a_progress.sdk.adapter` only when 0.3 is the installed line.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, Final, TypeVar, overload

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import (
    Artifact,
    DataPart,
    Message,
    Part,
    Task,
    TaskArtifactUpdateEvent,
    TaskStatus,
    TaskStatusUpdateEvent,
    TextPart,
)
from a2a.types import Role as SdkRole
from a2a.types import TaskState as SdkTaskState

from a2a_progress.carrier import TFRS_KEY, wire_envelope, wire_text
from a2a_progress.envelope import Envelope, Rejected, decode
from a2a_progress.sdk.views import (
    EMPTY_EVENT,
    ArtifactView,
    EventKind,
    EventView,
    MessageView,
    PartView,
    Role,
    TaskState,
)
from a2a_progress.sdk.views import message_text as _view_text

A2AEvent = Any
"""Every A2A event a 0.3 client call yields: a ``(Task, update)`` pair, a Message, or a bare
event."""

_STATES: Final = {
    SdkTaskState.submitted: TaskState.SUBMITTED,
    SdkTaskState.working: TaskState.WORKING,
    SdkTaskState.input_required: TaskState.INPUT_REQUIRED,
    SdkTaskState.completed: TaskState.COMPLETED,
    SdkTaskState.canceled: TaskState.CANCELED,
    SdkTaskState.failed: TaskState.FAILED,
    SdkTaskState.rejected: TaskState.REJECTED,
    SdkTaskState.auth_required: TaskState.AUTH_REQUIRED,
    SdkTaskState.unknown: TaskState.UNSPECIFIED,
}
_NATIVE: Final = {ours: theirs for theirs, ours in _STATES.items()}
_INTERRUPTED: Final = frozenset({TaskState.INPUT_REQUIRED, TaskState.AUTH_REQUIRED})
_ROLES: Final = {SdkRole.user: int(Role.USER), SdkRole.agent: int(Role.AGENT)}

# What working_envelope's ``read`` makes of a usable envelope (an Envelope, or its fields).
_Read = TypeVar("_Read")

__all__ = [
    "A2AEvent",
    "AgentExecutor",
    "EventQueue",
    "Message",
    "Part",
    "RequestContext",
    "TaskUpdater",
    "agent_message",
    "annotate_update",
    "envelope_part",
    "message_text",
    "new_task",
    "part_string",
    "part_view",
    "raw_envelope",
    "read_envelope",
    "status_message",
    "status_time",
    "text_part",
    "update_status",
    "update_string",
    "view_event",
    "working_envelope",
    "working_progress",
    "working_update",
]

# -- building ---------------------------------------------------------------------------------


def text_part(text: str) -> Part:
    """A plain text Part that every a2a-sdk transport delivers intact."""
    return Part(root=TextPart(text=wire_text(text)))


def envelope_part(envelope_json: str, fallback: str) -> Part:
    """The one Part of a working update: the text fallback beside the envelope."""
    return Part(
        root=TextPart(text=wire_text(fallback), metadata={TFRS_KEY: wire_envelope(envelope_json)})
    )


def new_task(context: RequestContext, context_id: str) -> Task:
    """The request's new task, SUBMITTED, with the user's message in its history."""
    history = [context.message] if context.message is not None else []
    return Task(
        id=context.task_id or "",
        context_id=context_id,
        status=TaskStatus(state=SdkTaskState.submitted),
        history=history,
    )


def agent_message(updater: TaskUpdater, parts: list[Part]) -> Message:
    """An agent message of the updater's task."""
    return updater.new_agent_message(parts)


async def update_status(updater: TaskUpdater, state: TaskState, message: Message | None) -> None:
    """Send a status update; on 0.3 an interrupted state (input or auth required) is final too,
    or the caller's stream would wait for more."""
    await updater.update_status(_NATIVE[state], message=message, final=state in _INTERRUPTED)


# -- reading ----------------------------------------------------------------------------------


def part_view(part: Part) -> PartView:
    """One Part read once: its text, envelope, data and other metadata."""
    root = part.root
    text = root.text if isinstance(root, TextPart) else None
    data = root.data if isinstance(root, DataPart) else None
    metadata = root.metadata
    envelope = None
    if metadata:
        if TFRS_KEY in metadata:
            envelope = decode(metadata[TFRS_KEY])
            metadata = {k: v for k, v in metadata.items() if k != TFRS_KEY} or None
    else:
        metadata = None
    return PartView(text, envelope, data, metadata, part)


def _message_view(message: Message) -> MessageView:
    return MessageView(
        message.message_id,
        _ROLES.get(message.role, int(Role.UNSPECIFIED)),
        tuple([part_view(part) for part in message.parts]),
        message.metadata or None,
        message,
    )


def _artifact_view(artifact: Artifact) -> ArtifactView:
    return ArtifactView(
        artifact.artifact_id,
        tuple([part_view(part) for part in artifact.parts]),
        artifact.metadata or None,
        artifact,
        artifact.name or "",
    )


def status_time(status: TaskStatus) -> float | None:
    """When the agent recorded ``status`` (POSIX seconds); None when it did not say."""
    if not status.timestamp:
        return None
    try:
        return datetime.fromisoformat(status.timestamp).timestamp()
    except ValueError:
        return None


def _state(status: TaskStatus) -> int:
    return int(_STATES.get(status.state, TaskState.UNSPECIFIED))


def _unwrap(event: Any) -> Any:
    # A client yields (Task, update): the update when there is one, else the Task.
    if isinstance(event, tuple):
        task, update = (*event, None, None)[:2]
        return update if update is not None else task
    return event


def view_event(event: A2AEvent) -> EventView:
    """The `EventView` of any A2A event a 0.3 client or executor handles."""
    event = _unwrap(event)
    if isinstance(event, TaskStatusUpdateEvent):
        status = event.status
        return EventView(
            EventKind.STATUS_UPDATE,
            event.task_id,
            event.context_id,
            _state(status),
            None if status.message is None else _message_view(status.message),
            status_time(status),
            metadata=event.metadata or None,
            event=event,
        )
    if isinstance(event, Task):
        status = event.status
        return EventView(
            EventKind.TASK,
            event.id,
            event.context_id,
            _state(status),
            None if status.message is None else _message_view(status.message),
            status_time(status),
            history=tuple([_message_view(message) for message in event.history or ()]),
            artifacts=tuple([_artifact_view(artifact) for artifact in event.artifacts or ()]),
            metadata=event.metadata or None,
            event=event,
        )
    if isinstance(event, TaskArtifactUpdateEvent):
        return EventView(
            EventKind.ARTIFACT_UPDATE,
            event.task_id,
            event.context_id,
            artifact=_artifact_view(event.artifact),
            append=bool(event.append),
            metadata=event.metadata or None,
            event=event,
        )
    if isinstance(event, Message):
        return EventView(
            EventKind.MESSAGE,
            event.task_id or "",
            event.context_id or "",
            message=_message_view(event),
            event=event,
        )
    return EMPTY_EVENT


@overload
def working_envelope(event: object) -> tuple[str, TaskStatusUpdateEvent, Envelope, Part] | None: ...
@overload
def working_envelope(
    event: object, read: Callable[[object], _Read | Rejected]
) -> tuple[str, TaskStatusUpdateEvent, _Read, Part] | None: ...
def working_envelope(
    event: object, read: Callable[[object], object] | None = None
) -> tuple[str, TaskStatusUpdateEvent, Any, Part] | None:
    """``(task_id, update, envelope, part)`` of a WORKING status update (as a client or an
    executor has it; ``update``: the bare update, for its ``context_id``) whose message is one
    Part carrying a usable envelope; else None (`view_event` reads it): what the consumer rules
    need of most events when nobody reads the agent's times, with no view built and no
    timestamp parsed. ``read`` reads the envelope's string in place of `decode`:
    `decode_fields`, for a reader that needs no `Envelope` (then the third item is its fields)."""
    event = _unwrap(event)
    if type(event) is not TaskStatusUpdateEvent:
        return None
    status = event.status
    message = status.message
    if status.state is not SdkTaskState.working or message is None or len(message.parts) != 1:
        return None
    part = message.parts[0]
    metadata = part.root.metadata
    if not metadata or TFRS_KEY not in metadata:
        return None
    envelope = decode(metadata[TFRS_KEY]) if read is None else read(metadata[TFRS_KEY])
    if type(envelope) is Rejected:
        return None  # view_event reads it again, for its exact reason
    return event.task_id, event, envelope, part


def working_progress(event: object) -> tuple[str, str, TaskStatus, Envelope, str] | None:
    """``(task_id, context_id, status, envelope, fallback)`` of an update `working_envelope`
    takes, else None (`view_event` reads it): the consumer rules' reading of it, without a
    view. ``status`` is the SDK's own, for `status_time`; ``fallback`` the Part's text ("" for
    none)."""
    read = working_envelope(event)
    if read is None:
        return None
    task_id, update, envelope, part = read
    root = part.root
    text = root.text if isinstance(root, TextPart) else ""
    return task_id, update.context_id, update.status, envelope, text


def part_string(part: Part, key: str) -> str | None:
    """``part``'s ``metadata[key]`` when it is a string, else None."""
    metadata = part.root.metadata
    value = metadata.get(key) if metadata else None
    return value if isinstance(value, str) else None


def working_update(event: object) -> tuple[str, str] | None:
    """``(task_id, context_id)`` of a bare WORKING status update, else None."""
    if type(event) is TaskStatusUpdateEvent and event.status.state is SdkTaskState.working:
        return event.task_id, event.context_id
    return None


def status_message(event: A2AEvent) -> Message | None:
    """The SDK message a status event carries, if any (a Message event is its own)."""
    event = _unwrap(event)
    if isinstance(event, TaskStatusUpdateEvent | Task):
        return event.status.message
    return event if isinstance(event, Message) else None


def message_text(message: Message, delimiter: str = "\n") -> str:
    """The text of a message's text Parts, joined (what a pre-upgrade caller shows)."""
    return _view_text(_message_view(message), delimiter)


def raw_envelope(part: Part) -> object:
    """The value under ``metadata["tfrs"]`` (any JSON type), or None when absent."""
    metadata = part.root.metadata
    return None if not metadata else metadata.get(TFRS_KEY)


def read_envelope(source: Any) -> Envelope | Rejected | None:
    """The envelope carried by any of the A2A shapes that can hold one, or None."""
    if isinstance(source, Part):
        return part_view(source).envelope
    message = status_message(source)
    if message is None:
        return None
    for part in message.parts:
        found = part_view(part).envelope
        if found is not None:
            return found
    return None


def annotate_update(event: object, key: str, value: str) -> bool | None:
    """Set a status update's own ``metadata[key]`` (the event goes on changed, its other keys
    kept): True when set; False when the event already holds ``key`` (left as it is); None for
    any other event."""
    if not isinstance(event, TaskStatusUpdateEvent):
        return None
    metadata = event.metadata
    if metadata and key in metadata:
        return False
    # A new dict: the agent's own may be shared with other events it sends.
    event.metadata = {**metadata, key: value} if metadata else {key: value}
    return True


def update_string(event: object, key: str) -> str | None:
    """A status update's own ``metadata[key]`` when it is a string (as a client or an executor
    has the update); None for any other event: a Task's metadata is every update's merged
    (a2a-sdk's TaskManager), so it says nothing of the update at hand."""
    if isinstance(event, tuple):  # a client's (Task, update): the update, if any
        event = event[1] if len(event) > 1 else None
    if type(event) is not TaskStatusUpdateEvent or not event.metadata:
        return None
    value = event.metadata.get(key)
    return value if isinstance(value, str) else None
