"""Where an envelope lives on the A2A wire: ``Part(text=fallback, metadata={"tfrs": ...})``.

Builds that Part, and reads the envelope back from a Part, Message, status update, Task or
``StreamResponse`` without ever changing what it reads. `view_event` is the one place that
unpacks the A2A event union: everything above the wire reads an `EventView`.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Final, NamedTuple

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

from a2a_progress.envelope import (
    HARD_LIMIT_BYTES,
    Envelope,
    OversizeEnvelopeError,
    Rejected,
    decode,
    utf8_size,
)

TFRS_KEY: Final = "tfrs"
"""The fixed metadata key that carries the envelope."""

# a2a-sdk 1.3's SSE client splits lines like str.splitlines(), so also at U+0085, U+2028 and
# U+2029, which JSON leaves unescaped: one of them anywhere in a Part cuts the event in two and
# kills the whole JSON-RPC or REST stream. Envelopes carry them as JSON escapes (the same string
# once decoded); plain text gets a newline, which is what they mean.
_LINE_BREAKS: Final = ("\x85", "\u2028", "\u2029")
_JSON_ESCAPES: Final = str.maketrans({char: f"\\u{ord(char):04x}" for char in _LINE_BREAKS})
_NEWLINES: Final = str.maketrans(dict.fromkeys(_LINE_BREAKS, "\n"))


def text_part(text: str) -> Part:
    """A plain text Part that every a2a-sdk transport delivers intact (see `_LINE_BREAKS`)."""
    return Part(text=text.translate(_NEWLINES))


def envelope_part(envelope_json: str, fallback: str) -> Part:
    """The one Part of a working update: the text fallback beside the envelope.

    Raises `OversizeEnvelopeError` when escaping line separators took the envelope over
    `HARD_LIMIT_BYTES`.

    Examples:
        >>> from a2a_progress.envelope import Envelope, Kind, encode
        >>> part = envelope_part(encode(Envelope(Kind.TEXT, 1, {"text": "CI is red"})), "CI is red")
        >>> part.text, TFRS_KEY in part.metadata
        ('CI is red', True)
    """
    escaped = envelope_json.translate(_JSON_ESCAPES)
    if len(escaped) != len(envelope_json) and utf8_size(escaped) > HARD_LIMIT_BYTES:
        raise OversizeEnvelopeError(f"escaped envelope is over {HARD_LIMIT_BYTES} bytes")
    part = text_part(fallback)
    part.metadata[TFRS_KEY] = escaped
    return part


def _has_envelope(part: Part) -> bool:
    """Whether the Part carries ``metadata["tfrs"]`` at all (whatever its value, even null)."""
    return part.HasField("metadata") and TFRS_KEY in part.metadata


def carries_envelope(parts: Sequence[Part]) -> bool:
    """Whether any of ``parts`` carries ``metadata["tfrs"]`` (usable or not)."""
    return any(_has_envelope(part) for part in parts)


def raw_envelope(part: Part) -> object:
    """The value under ``metadata["tfrs"]`` (any JSON type), or `None` when absent.

    Tests for the key first: indexing a Struct with a missing key inserts it. A JSON null value
    also gives None; readers decode that as a rejected (not a missing) envelope.
    """
    if not _has_envelope(part):
        return None
    return part.metadata[TFRS_KEY]


def message_text(message: Message, delimiter: str = "\n") -> str:
    """The text of a message's text parts, joined (what a pre-upgrade caller shows).

    Examples:
        >>> from a2a.types import Part
        >>> message_text(Message(parts=[Part(text="CI is red"), Part(text="2 failing tests")]))
        'CI is red\\n2 failing tests'
    """
    # A list, not a generator: join() would build one anyway (called once per update).
    return delimiter.join([part.text for part in message.parts if part.HasField("text")])


def read_message(message: Message) -> Envelope | Rejected | None:
    """The envelope of a message: from its first Part that carries one, else None.

    At most one envelope per update: later envelope-bearing Parts are ignored.
    """
    parts = message.parts
    if len(parts) == 1:  # the norm: indexing one Part is cheaper than iterating
        return read_part(parts[0])
    for part in parts:
        if _has_envelope(part):
            return decode(part.metadata[TFRS_KEY])
    return None


def read_part(part: Part) -> Envelope | Rejected | None:
    """The envelope of one Part, or None when it carries none."""
    # _has_envelope() inlined, and the Struct's map read directly: `key in struct` and
    # `struct[key]` are Python-level protobuf helpers, ~0.3 us on every envelope read. The
    # helper's answer for a Value that is not a string (null, a number, ..., or unset) stays
    # whatever `struct[key]` gives.
    if part.HasField("metadata"):
        value = part.metadata.fields.get(TFRS_KEY)
        if value is not None:
            if value.WhichOneof("kind") == "string_value":
                return decode(value.string_value)
            return decode(part.metadata[TFRS_KEY])
    return None


A2AEvent = StreamResponse | TaskStatusUpdateEvent | Task | Message | TaskArtifactUpdateEvent
"""Every A2A event a client call yields, wrapped in a ``StreamResponse`` or bare."""


class EventKind(StrEnum):
    """Which member of the A2A event union an event is."""

    STATUS_UPDATE = "status_update"
    TASK = "task"
    MESSAGE = "message"
    ARTIFACT_UPDATE = "artifact_update"
    EMPTY = "empty"
    """A ``StreamResponse`` with no payload set (or one this SDK does not know)."""


class EventView(NamedTuple):
    """One A2A event, unpacked once: what the layers above the wire read of it.

    ``state`` and ``status`` are None when the event carries no task status (a Message or an
    artifact update); ``message`` is the status message, or the Message itself for a message
    event. ``task`` is set for a Task snapshot, ``artifact`` (with ``append``) for an artifact
    update; ``event`` is the unwrapped event itself (None for an empty ``StreamResponse``). The
    protobuf values are the event's own, not copies: read them, never change them.
    """

    kind: EventKind
    task_id: str
    context_id: str
    state: int | None = None
    message: Message | None = None
    status: TaskStatus | None = None
    task: Task | None = None
    artifact: Artifact | None = None
    append: bool = False
    event: TaskStatusUpdateEvent | Task | Message | TaskArtifactUpdateEvent | None = None


_EMPTY: Final = EventView(EventKind.EMPTY, "", "")
_STATUS_UPDATE: Final = EventKind.STATUS_UPDATE
# EventView(...) runs a generated Python __new__ that fills defaults; the status update path
# (almost every event of a stream) builds the tuple directly.
_new_view: Final = tuple.__new__


def view_event(event: A2AEvent) -> EventView:
    """The `EventView` of any member of the A2A event union, wrapped or bare."""
    if isinstance(event, StreamResponse):
        # What a client's stream yields: unwrapped here, not by a second call of this function.
        which = event.WhichOneof("payload")
        if which is None:
            return _EMPTY
        event = getattr(event, which)
    # Status updates first: they are almost every event of a stream.
    if isinstance(event, TaskStatusUpdateEvent):
        status = event.status
        message = status.message if status.HasField("message") else None
        view: EventView = _new_view(
            EventView,
            (
                _STATUS_UPDATE,
                event.task_id,
                event.context_id,
                status.state,
                message,
                status,
                None,
                None,
                False,
                event,
            ),
        )
        return view
    if isinstance(event, Task):
        status = event.status
        return EventView(
            EventKind.TASK,
            event.id,
            event.context_id,
            status.state,
            status.message if status.HasField("message") else None,
            status,
            task=event,
            event=event,
        )
    if isinstance(event, TaskArtifactUpdateEvent):
        return EventView(
            EventKind.ARTIFACT_UPDATE,
            event.task_id,
            event.context_id,
            artifact=event.artifact,
            append=event.append,
            event=event,
        )
    return EventView(EventKind.MESSAGE, event.task_id, event.context_id, message=event, event=event)


def status_time(status: TaskStatus | None) -> float | None:
    """When the agent recorded ``status`` (``TaskStatus.timestamp``, POSIX seconds), if it did.

    a2a-sdk's ``TaskUpdater`` stamps every status it sends; a status moved into ``Task.history``
    keeps only its message, which has no time, so history gives None.
    """
    if status is None or not status.HasField("timestamp"):
        return None
    stamp = status.timestamp
    seconds: int = stamp.seconds
    nanos: int = stamp.nanos
    return seconds + nanos / 1e9


def status_message(
    event: StreamResponse | TaskStatusUpdateEvent | Task | Message,
) -> Message | None:
    """The status message an event carries, if any (a Message event is its own message)."""
    if isinstance(event, TaskStatusUpdateEvent):  # most events: no view needed for one field
        status = event.status
        return status.message if status.HasField("message") else None
    return view_event(event).message


def read_envelope(
    source: Part | Message | TaskStatusUpdateEvent | Task | StreamResponse,
) -> Envelope | Rejected | None:
    """The envelope carried by any of the A2A shapes that can hold one, or None.

    Examples:
        >>> from a2a.types import Part
        >>> from a2a_progress.envelope import Envelope, Kind, encode
        >>> part = envelope_part(encode(Envelope(Kind.TEXT, 3, {"text": "CI is red"})), "CI is red")
        >>> read_envelope(part).seq, read_envelope(Part(text="plain text")) is None
        (3, True)
    """
    if isinstance(source, Part):
        return read_part(source)
    message = source if isinstance(source, Message) else status_message(source)
    return None if message is None else read_message(message)
