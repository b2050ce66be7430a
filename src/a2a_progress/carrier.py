"""Where an envelope lives on the A2A wire: ``Part(text=fallback, metadata={"tfrs": ...})``.

Builds that Part, and reads the envelope back from a Part, Message, status update, Task or
``StreamResponse`` without ever changing what it reads.
"""

from __future__ import annotations

from typing import Final

from a2a.types.a2a_pb2 import Message, Part, StreamResponse, Task, TaskStatusUpdateEvent

from a2a_progress.envelope import (
    HARD_LIMIT_BYTES,
    Envelope,
    OversizeEnvelopeError,
    Rejected,
    decode,
    utf8_size,
)

TFRS_KEY: Final = "tfrs"
"""The fixed metadata key that carries the envelope (spec E1)."""

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
    """The one Part of a working update: the text fallback beside the envelope (spec rule 2).

    Raises :class:`OversizeEnvelopeError` when escaping line separators took the envelope over
    :data:`HARD_LIMIT_BYTES`.
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


def raw_envelope(part: Part) -> object:
    """The value under ``metadata["tfrs"]`` (any JSON type), or :data:`None` when absent.

    Tests for the key first: indexing a Struct with a missing key inserts it. A JSON null value
    also gives None; readers decode that as a rejected (not a missing) envelope.
    """
    if not _has_envelope(part):
        return None
    return part.metadata[TFRS_KEY]


def message_text(message: Message, delimiter: str = "\n") -> str:
    """The text of a message's text parts, joined (what a pre-upgrade caller shows)."""
    # A list, not a generator: join() would build one anyway (called once per update).
    return delimiter.join([part.text for part in message.parts if part.HasField("text")])


def read_message(message: Message) -> Envelope | Rejected | None:
    """The envelope of a message: from its first Part that carries one, else None.

    At most one envelope per update (spec rule 1): later envelope-bearing Parts are ignored.
    """
    parts = message.parts
    if len(parts) == 1:  # the norm (spec rule 2): indexing one Part is cheaper than iterating
        return _read_part(parts[0])
    for part in parts:
        if _has_envelope(part):
            return decode(part.metadata[TFRS_KEY])
    return None


def _read_part(part: Part) -> Envelope | Rejected | None:
    # Tests for the key once, then indexes: raw_envelope() would test a second time (~1 us
    # of protobuf Struct calls, for every envelope read).
    return decode(part.metadata[TFRS_KEY]) if _has_envelope(part) else None


def status_message(
    event: StreamResponse | TaskStatusUpdateEvent | Task | Message,
) -> Message | None:
    """The status message an event carries, if any (a Message event is its own message)."""
    if isinstance(event, StreamResponse):
        which = event.WhichOneof("payload")
        if which == "status_update":
            return status_message(event.status_update)
        if which == "task":
            return status_message(event.task)
        if which == "message":
            return event.message
        return None
    if isinstance(event, Message):
        return event
    return event.status.message if event.status.HasField("message") else None


def read_envelope(
    source: Part | Message | TaskStatusUpdateEvent | Task | StreamResponse,
) -> Envelope | Rejected | None:
    """The envelope carried by any of the A2A shapes that can hold one, or None."""
    if isinstance(source, Part):
        return _read_part(source)
    message = source if isinstance(source, Message) else status_message(source)
    return None if message is None else read_message(message)
