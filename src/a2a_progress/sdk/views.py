"""The project's own small types for what a2a-sdk carries: no a2a-sdk import here.

The installed line's adapter (`a2a_progress.sdk.adapter`) reads each A2A event ONCE into an
`EventView`: its ids, its state (`TaskState`, numbered as A2A 1.0's enum), its
message and each Part with the envelope or text it carries. The consumer, the dialects and the
bridge read these views and never go back to the SDK's objects (``raw`` keeps them for callers
who want the SDK's own value).

JSON values (metadata, a DataPart's data) are plain Python: dict, list, str, float or int, bool,
None.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum, StrEnum
from typing import Any, NamedTuple

from a2a_progress.envelope import Envelope, Rejected


class TaskState(IntEnum):
    """A task's state, with the numbers of A2A 1.0's ``TaskState`` (what the 1.x SDK sends).

    Examples:
        >>> TaskState.COMPLETED == 3, state_name(TaskState.INPUT_REQUIRED)
        (True, 'TASK_STATE_INPUT_REQUIRED')
    """

    UNSPECIFIED = 0
    SUBMITTED = 1
    WORKING = 2
    COMPLETED = 3
    FAILED = 4
    CANCELED = 5
    INPUT_REQUIRED = 6
    REJECTED = 7
    AUTH_REQUIRED = 8


def state_name(state: int) -> str:
    """``TASK_STATE_COMPLETED`` for `TaskState.COMPLETED`; the number for one A2A does not
    name (a peer can send any number)."""
    try:
        return f"TASK_STATE_{TaskState(state).name}"
    except ValueError:
        return str(state)


class Role(IntEnum):
    """Who sent a message (numbered as A2A 1.0's ``Role``)."""

    UNSPECIFIED = 0
    USER = 1
    AGENT = 2


class PartView(NamedTuple):
    """One Part of a message or artifact, read once.

    ``text`` is the Part's text (None for a data or file Part); ``envelope`` what its
    ``metadata["tfrs"]`` decodes to (None when the key is absent); ``data`` a DataPart's JSON
    value (else None); ``metadata`` the Part's other metadata as JSON, without the envelope's key
    (None when there is none); ``raw`` the SDK's own Part.
    """

    text: str | None
    envelope: Envelope | Rejected | None
    data: Any
    metadata: Mapping[str, Any] | None
    raw: Any


class MessageView(NamedTuple):
    """A message: its id, role, Parts (each read once), metadata, and the SDK's own ``raw``.

    ``metadata`` is None when the message has none, and for a message whose lone Part carries an
    envelope (only dialects read it, and they never read such a message).
    """

    message_id: str
    role: int
    parts: tuple[PartView, ...]
    metadata: Mapping[str, Any] | None
    raw: Any


class ArtifactView(NamedTuple):
    """An artifact: its id, Parts and metadata (``raw``: the SDK's own Artifact)."""

    artifact_id: str
    parts: tuple[PartView, ...]
    metadata: Mapping[str, Any] | None
    raw: Any
    name: str = ""


class EventKind(StrEnum):
    """Which member of the A2A event union an event is."""

    STATUS_UPDATE = "status_update"
    TASK = "task"
    MESSAGE = "message"
    ARTIFACT_UPDATE = "artifact_update"
    EMPTY = "empty"
    """A stream response with no payload set (or one this SDK does not know)."""


class EventView(NamedTuple):
    """One A2A event, read once: everything the layers above the seam read of it.

    ``state`` is None when the event carries no task status (a Message, an artifact update);
    ``message`` is the status message, or the Message itself for a message event; ``time`` when
    the agent recorded the status (POSIX seconds; None when it did not say). A Task snapshot has
    its ``history`` and ``artifacts``; an artifact update its ``artifact`` and ``append``.
    ``metadata`` is the event's own (status or artifact update; None for a status update whose
    lone Part carries an envelope, which no dialect reads). ``event`` is the SDK's event itself
    (None for an empty one).
    """

    kind: EventKind
    task_id: str
    context_id: str
    state: int | None = None
    message: MessageView | None = None
    time: float | None = None
    artifact: ArtifactView | None = None
    append: bool = False
    history: tuple[MessageView, ...] = ()
    artifacts: tuple[ArtifactView, ...] = ()
    metadata: Mapping[str, Any] | None = None
    event: Any = None


EMPTY_EVENT = EventView(EventKind.EMPTY, "", "")
"""The view of an event with nothing in it."""


def message_text(message: MessageView, delimiter: str = "\n") -> str:
    """The text of a message's text Parts, joined (what a pre-upgrade caller shows)."""
    return delimiter.join([part.text for part in message.parts if part.text is not None])


def message_envelope(message: MessageView) -> Envelope | Rejected | None:
    """The envelope of a message: its first Part that carries one (at most one counts), else
    None."""
    for part in message.parts:
        if part.envelope is not None:
            return part.envelope
    return None


def carries_envelope(parts: tuple[PartView, ...]) -> bool:
    """Whether any of ``parts`` carries ``metadata["tfrs"]`` (usable or not)."""
    return any(part.envelope is not None for part in parts)


__all__ = [
    "EMPTY_EVENT",
    "ArtifactView",
    "EventKind",
    "EventView",
    "MessageView",
    "PartView",
    "Role",
    "TaskState",
    "carries_envelope",
    "message_envelope",
    "message_text",
    "state_name",
]
