"""The a2a-sdk 1.x adapter (protobuf types): every 1.x idiom the project needs, in one place.

Reads each event once into the project's views (`a2a_progress.sdk.views`) and builds the
Parts, tasks and status updates the producer sends. Imported through
`a2a_progress.sdk.adapter` only when 1.x is the installed line.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TypeVar, overload

from a2a.helpers import new_task as _new_task
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types.a2a_pb2 import (
    Artifact,
    Message,
    Part,
    StreamResponse,
    Task,
    TaskArtifactUpdateEvent,
    TaskStatus,
    TaskStatusUpdateEvent,
)
from a2a.types.a2a_pb2 import TaskState as PbTaskState
from google.protobuf.struct_pb2 import Struct, Value  # type: ignore[import-untyped]

from a2a_progress.carrier import TFRS_KEY, wire_envelope, wire_text
from a2a_progress.envelope import Envelope, Rejected, decode
from a2a_progress.sdk.views import (
    EMPTY_EVENT,
    ArtifactView,
    EventKind,
    EventView,
    MessageView,
    PartView,
    TaskState,
)
from a2a_progress.sdk.views import message_text as _view_text

A2AEvent = StreamResponse | TaskStatusUpdateEvent | Task | Message | TaskArtifactUpdateEvent
"""Every A2A event a client call yields, wrapped in a ``StreamResponse`` or bare."""

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
    "json_value",
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
    return Part(text=wire_text(text))


def envelope_part(envelope_json: str, fallback: str) -> Part:
    """The one Part of a working update: the text fallback beside the envelope.

    Raises `a2a_progress.envelope.OversizeEnvelopeError` when escaping line separators
    took the envelope over the hard limit.

    Examples:
        >>> from a2a_progress.envelope import Envelope, Kind, encode
        >>> part = envelope_part(encode(Envelope(Kind.TEXT, 1, {"text": "CI is red"})), "CI is red")
        >>> part.text, TFRS_KEY in part.metadata
        ('CI is red', True)
    """
    escaped = wire_envelope(envelope_json)
    part = text_part(fallback)
    # The Struct's map directly: `struct[key] = ...` is a Python-level protobuf helper.
    part.metadata.fields[TFRS_KEY].string_value = escaped
    return part


def new_task(context: RequestContext, context_id: str) -> Task:
    """The request's new task, SUBMITTED, with the user's message in its history."""
    history = [context.message] if context.message is not None else []
    return _new_task(
        context.task_id or "", context_id, _NATIVE[TaskState.SUBMITTED], history=history
    )


def agent_message(updater: TaskUpdater, parts: list[Part]) -> Message:
    """An agent message of the updater's task."""
    return updater.new_agent_message(parts)


async def update_status(updater: TaskUpdater, state: TaskState, message: Message | None) -> None:
    """Send a status update (1.x ends the turn on terminal and interrupted states itself)."""
    await updater.update_status(_NATIVE[state], message=message)


_NATIVE: Final[dict[TaskState, PbTaskState]] = {
    state: PbTaskState.Value(f"TASK_STATE_{state.name}") for state in TaskState
}


# -- reading ----------------------------------------------------------------------------------


def json_value(value: Value) -> Any:
    """A protobuf ``Value`` as plain Python JSON (numbers are floats, as the Struct holds)."""
    kind = value.WhichOneof("kind")
    if kind == "string_value":
        return value.string_value
    if kind == "struct_value":
        return _json_object(value.struct_value)
    if kind == "list_value":
        return [json_value(item) for item in value.list_value.values]
    if kind == "number_value":
        return value.number_value
    if kind == "bool_value":
        return value.bool_value
    return None


def _json_object(struct: Struct) -> dict[str, Any]:
    return {key: json_value(value) for key, value in struct.fields.items()}


def part_view(part: Part) -> PartView:
    """One Part read once: its text, envelope, data and other metadata."""
    # Each protobuf read costs about a microsecond: what the common Part (text beside an
    # envelope) answers by itself is not asked again (HasField of a non-empty text, of
    # metadata holding the key; reading an unset field sets nothing).
    text: str | None = part.text
    if not text and not part.HasField("text"):
        text = None
    fields = part.metadata.fields
    value = fields.get(TFRS_KEY)
    if value is not None:
        raw = value.string_value
        if raw:  # the norm: one string
            envelope = decode(raw)
        else:
            # An empty string, any other JSON value, or an unset Value (which the Struct's own
            # accessor refuses with ValueError): a rejected envelope; a peer's bytes never raise.
            envelope = decode(part.metadata[TFRS_KEY] if value.WhichOneof("kind") else None)
        metadata = None
        if len(fields) > 1:
            metadata = {k: json_value(v) for k, v in fields.items() if k != TFRS_KEY}
    else:
        envelope = None
        metadata = _json_object(part.metadata) if part.HasField("metadata") else None
    # A Part holds one of text, data, a file or raw bytes.
    data = json_value(part.data) if text is None and part.HasField("data") else None
    view: PartView = _new_view(PartView, (text, envelope, data, metadata, part))
    return view


def _message_view(message: Message, lone: PartView | None = None) -> MessageView:
    """``lone``: the view of its lone Part, when already read."""
    parts = message.parts
    if len(parts) == 1:
        if lone is None:
            lone = part_view(parts[0])
        views: tuple[PartView, ...] = (lone,)
        # A message's metadata is for dialects, which never read an update with an envelope.
        with_metadata = lone.envelope is None
    else:
        views = tuple([part_view(part) for part in parts])
        with_metadata = True
    metadata = None
    if with_metadata and message.HasField("metadata"):
        metadata = _json_object(message.metadata)
    view: MessageView = _new_view(
        MessageView, (message.message_id, message.role, views, metadata, message)
    )
    return view


def _artifact_view(artifact: Artifact) -> ArtifactView:
    metadata = _json_object(artifact.metadata) if artifact.HasField("metadata") else None
    return ArtifactView(
        artifact.artifact_id,
        tuple([part_view(part) for part in artifact.parts]),
        metadata,
        artifact,
        artifact.name,
    )


def status_time(status: TaskStatus) -> float | None:
    """When the agent recorded ``status`` (POSIX seconds); None when it did not say."""
    if not status.HasField("timestamp"):
        return None
    stamp = status.timestamp
    seconds: int = stamp.seconds
    nanos: int = stamp.nanos
    return seconds + nanos / 1e9


_STATUS_UPDATE: Final = EventKind.STATUS_UPDATE
_TASK: Final = EventKind.TASK
# EventView(...) runs a generated Python __new__ that fills defaults; the status update path
# (almost every event of a stream) builds the tuples directly.
_new_view: Final = tuple.__new__


def view_event(event: A2AEvent) -> EventView:
    """The `EventView` of any member of the A2A event union, wrapped or bare."""
    if isinstance(event, StreamResponse):
        which = event.WhichOneof("payload")
        if which is None:
            return EMPTY_EVENT
        event = getattr(event, which)
    if isinstance(event, TaskStatusUpdateEvent):  # almost every event of a stream
        status = event.status
        sent = status.message  # an unset message reads as an empty one, and stays unset
        parts = sent.parts
        lone = part_view(parts[0]) if len(parts) == 1 else None
        message_view: MessageView | None
        if lone is not None and lone.envelope is not None:
            # The norm, _message_view() inlined: one Part, carrying an envelope. The message's
            # and the event's metadata are for dialects, which never read such an update.
            message_view = _new_view(MessageView, (sent.message_id, sent.role, (lone,), None, sent))
            metadata = None
        else:
            if parts:  # then it is set
                message_view = _message_view(sent, lone)
            else:
                message_view = _message_view(sent) if status.HasField("message") else None
            metadata = _json_object(event.metadata) if event.HasField("metadata") else None
        stamp = status.timestamp  # status_time(), inlined: almost every event
        seconds: int = stamp.seconds
        if seconds or status.HasField("timestamp"):
            nanos: int = stamp.nanos
            at: float | None = seconds + nanos / 1e9
        else:
            at = None
        view: EventView = _new_view(
            EventView,
            (
                _STATUS_UPDATE,
                event.task_id,
                event.context_id,
                status.state,
                message_view,
                at,
                None,
                False,
                (),
                (),
                metadata,
                event,
            ),
        )
        return view
    if isinstance(event, Task):
        # Each turn's first event: built as the status update's view is (EventView(...) with
        # keywords, and comprehensions, cost ~8 k instructions more).
        status = event.status
        task_view: EventView = _new_view(
            EventView,
            (
                _TASK,
                event.id,
                event.context_id,
                status.state,
                _message_view(status.message) if status.HasField("message") else None,
                status_time(status),
                None,
                False,
                tuple(map(_message_view, event.history)),
                tuple(map(_artifact_view, event.artifacts)),
                _json_object(event.metadata) if event.HasField("metadata") else None,
                event,
            ),
        )
        return task_view
    if isinstance(event, TaskArtifactUpdateEvent):
        return EventView(
            EventKind.ARTIFACT_UPDATE,
            event.task_id,
            event.context_id,
            artifact=_artifact_view(event.artifact),
            append=event.append,
            metadata=_json_object(event.metadata) if event.HasField("metadata") else None,
            event=event,
        )
    message = _message_view(event)
    return EventView(
        EventKind.MESSAGE, event.task_id, event.context_id, message=message, event=event
    )


@overload
def working_envelope(event: object) -> tuple[str, TaskStatusUpdateEvent, Envelope, Part] | None: ...
@overload
def working_envelope(
    event: object, read: Callable[[object], _Read | Rejected]
) -> tuple[str, TaskStatusUpdateEvent, _Read, Part] | None: ...
def working_envelope(
    event: object, read: Callable[[object], object] | None = None
) -> tuple[str, TaskStatusUpdateEvent, Any, Part] | None:
    """``(task_id, update, envelope, part)`` of a WORKING status update, wrapped or bare, whose
    message is one Part carrying a usable envelope (``update``: the bare update, whose
    ``context_id`` a reader that needs it reads: one that only counts seldom does); else None
    (`view_event` reads it).

    Most events of a stream are such an update, and this is what the consumer rules need of
    one when nobody reads the agent's times (the OpenTelemetry bridge times tool calls with its
    own clock): no view is built, no timestamp read (a caller's bridge reads the Part's other
    metadata only for the update that opens a tool call, see `part_string`).

    ``read`` reads the envelope's string in place of `decode`: `decode_fields`, for a reader that
    needs no `Envelope` (then the third item is its fields)."""
    if type(event) is StreamResponse:
        event = event.status_update  # unset: an empty one, whose state is not WORKING
    elif type(event) is not TaskStatusUpdateEvent:
        return None
    status = event.status
    if status.state != _WORKING:
        return None
    parts = status.message.parts  # an unset message reads as an empty one, and stays unset
    if len(parts) != 1:
        return None
    part = parts[0]
    value = part.metadata.fields.get(TFRS_KEY)
    if value is None:
        return None
    # Not a string: "", rejected, and then read again by view_event for its exact reason.
    envelope = decode(value.string_value) if read is None else read(value.string_value)
    if type(envelope) is Rejected:
        return None
    return event.task_id, event, envelope, part


def working_progress(event: object) -> tuple[str, str, TaskStatus, Envelope, str] | None:
    """``(task_id, context_id, status, envelope, fallback)`` of a WORKING status update,
    wrapped or bare, whose message is one Part carrying a usable envelope; else None
    (`view_event` reads it).

    What the consumer rules take of such an update (most events of a stream), read without a
    view: `view_event` builds four tuples and reads the message's id and role, which the rules
    never ask of an update that carries an envelope. ``status`` is the SDK's own, for
    `status_time`: the rules need the time of few updates (each protobuf read costs about a
    microsecond). ``fallback`` is the Part's text ("" for none)."""
    if type(event) is StreamResponse:
        event = event.status_update  # unset: an empty one, whose state is not WORKING
    elif type(event) is not TaskStatusUpdateEvent:
        return None
    status = event.status
    if status.state != _WORKING:
        return None
    parts = status.message.parts  # an unset message reads as an empty one, and stays unset
    if len(parts) != 1:
        return None
    part = parts[0]
    value = part.metadata.fields.get(TFRS_KEY)
    if value is None:
        return None
    # Not a string: "", rejected, and then read again by view_event for its exact reason.
    envelope = decode(value.string_value)
    if type(envelope) is not Envelope:
        return None
    return event.task_id, event.context_id, status, envelope, part.text


def part_string(part: Part, key: str) -> str | None:
    """``part.metadata[key]`` when it is a string, else None."""
    return _string_value(part.metadata.fields.get(key))


def working_update(event: object) -> tuple[str, str] | None:
    """``(task_id, context_id)`` of a bare WORKING status update, else None."""
    if type(event) is TaskStatusUpdateEvent and event.status.state == _WORKING:
        return event.task_id, event.context_id
    return None


_WORKING: Final = int(TaskState.WORKING)


def message_text(message: Message, delimiter: str = "\n") -> str:
    """The text of a message's text Parts, joined (what a pre-upgrade caller shows).

    Examples:
        >>> message_text(Message(parts=[Part(text="CI is red"), Part(text="2 failing tests")]))
        'CI is red\\n2 failing tests'
    """
    return _view_text(_message_view(message), delimiter)


def status_message(event: A2AEvent) -> Message | None:
    """The SDK message a status event carries, if any (a Message event is its own)."""
    if isinstance(event, StreamResponse):
        which = event.WhichOneof("payload")
        if which is None:
            return None
        event = getattr(event, which)
    if isinstance(event, TaskStatusUpdateEvent | Task):
        status = event.status
        return status.message if status.HasField("message") else None
    return event if isinstance(event, Message) else None


def raw_envelope(part: Part) -> object:
    """The value under ``metadata["tfrs"]`` (any JSON type), or None when absent."""
    if not part.HasField("metadata") or TFRS_KEY not in part.metadata:
        return None
    return part.metadata[TFRS_KEY]


def read_envelope(source: Part | A2AEvent) -> Envelope | Rejected | None:
    """The envelope carried by any of the A2A shapes that can hold one, or None.

    Examples:
        >>> from a2a_progress.envelope import Envelope, Kind, encode
        >>> part = envelope_part(encode(Envelope(Kind.TEXT, 3, {"text": "CI is red"})), "CI is red")
        >>> read_envelope(part).seq, read_envelope(Part(text="plain text")) is None
        (3, True)
    """
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
    # The Struct's map is used directly: `key in struct` and `struct[key] = ...` are
    # Python-level protobuf helpers, several times the cost (this runs for every tool call).
    # No HasField(): an unset metadata reads as an empty default, set by the assignment.
    fields = event.metadata.fields
    if key in fields:
        return False
    fields[key].string_value = value
    return True


def update_string(event: object, key: str) -> str | None:
    """A status update's own ``metadata[key]`` when it is a string (the update wrapped or
    bare); None for any other event: a Task's metadata is every update's merged (a2a-sdk's
    TaskManager), so it says nothing of the update at hand."""
    if type(event) is StreamResponse:
        event = event.status_update  # unset: an empty one, whose metadata is empty
    elif type(event) is not TaskStatusUpdateEvent:
        return None
    return _string_value(event.metadata.fields.get(key))


def _string_value(value: Value | None) -> str | None:
    """``value``'s string, when it holds one (None: no value)."""
    if value is None:
        return None
    text: str = value.string_value
    # A non-empty string is one (another kind reads ""): asking which kind costs ~1.5 k
    # instructions, the caller's bridge reads this for each tool call opened.
    if text or value.WhichOneof("kind") == "string_value":
        return text
    return None
