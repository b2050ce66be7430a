"""The v1 progress envelope as a value: its fields, kinds, statuses and size limits.

`Envelope` validates whatever it is built from (`EnvelopeError`); `a2a_progress.envelope.codec`
turns one into its one JSON string and back. This module knows the schema and nothing else: no
JSON, no A2A types, no OpenTelemetry.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Final, cast

ENVELOPE_VERSION: Final = 1
"""The only envelope version this library reads and writes."""

HARD_LIMIT_BYTES: Final = 64 * 1024
"""An encoded envelope larger than this (UTF-8 bytes) is never sent nor accepted."""

SOFT_LIMIT_BYTES: Final = 8 * 1024
"""Producers split ``chunk`` and text payloads to stay under this many UTF-8 bytes."""


class Kind(StrEnum):
    """What an envelope describes.

    Examples:
        >>> Kind("tool_call") is Kind.TOOL_CALL
        True
    """

    THINKING = "thinking"
    TOOL_CALL = "tool_call"
    TOOL_OUTPUT_APPEND = "tool_output_append"
    TEXT = "text"
    ERROR = "error"


class Status(StrEnum):
    """Where the process of the envelope's stream stands: only tool calls end (``done`` or
    ``aborted``); every other kind is sent ``running``.

    Examples:
        >>> [status.value for status in Status]
        ['running', 'done', 'aborted']
    """

    RUNNING = "running"
    DONE = "done"
    ABORTED = "aborted"


class EnvelopeError(ValueError):
    """An envelope cannot be built or encoded as asked.

    Examples:
        >>> Envelope(Kind.TEXT, seq=1, payload={})
        Traceback (most recent call last):
        ...
        a2a_progress.envelope.EnvelopeError: text payload needs a string 'text'
    """

    # Its public path, where users import it from: a span's error.type is the qualified name of
    # an exception that ended its operation (a2a_progress.otel.errors).
    __module__ = "a2a_progress.envelope"


PAYLOAD_FIELDS: Final[Mapping[Kind, tuple[tuple[str, ...], tuple[str, ...]]]] = {
    Kind.THINKING: (("text",), ()),
    Kind.TEXT: (("text",), ()),
    Kind.TOOL_CALL: (("tool",), ("tool_call_id",)),
    Kind.TOOL_OUTPUT_APPEND: (("tool", "chunk"), ("tool_call_id",)),
    Kind.ERROR: (("message",), ()),
}
"""Per kind: its payload's required fields, then its optional ones; each one a string."""

# The payload field that carries each kind's human-readable content.
_CONTENT_FIELD: Final[Mapping[Kind, str | None]] = {
    Kind.THINKING: "text",
    Kind.TEXT: "text",
    Kind.TOOL_CALL: None,
    Kind.TOOL_OUTPUT_APPEND: "chunk",
    Kind.ERROR: "message",
}


def payload_problem(kind: Kind, payload: Mapping[str, Any]) -> str | None:
    """What is wrong with ``payload`` for ``kind`` (see `PAYLOAD_FIELDS`), else None."""
    required, optional = PAYLOAD_FIELDS[kind]
    for name in required:
        if not isinstance(payload.get(name), str):
            return f"{kind} payload needs a string {name!r}"
    for name in optional:
        if name in payload and payload[name] is not None and not isinstance(payload[name], str):
            return f"{kind} payload field {name!r} must be a string"
    return None


def _is_int(value: object) -> bool:
    # bool is a subclass of int, but true/false is not a sequence number or a version.
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True)
class Envelope:
    """One immutable v1 progress envelope.

    ``payload`` is a read-only mapping; unknown extra keys are kept (forward compatibility).
    Construction validates every field (and the payload for the kind) and raises
    `EnvelopeError`.

    Examples:
        >>> call = Envelope(Kind.TOOL_CALL, seq=2, payload={"tool": "search"}, stream_key="c1")
        >>> call.status, call.payload["tool"]
        (<Status.RUNNING: 'running'>, 'search')
    """

    kind: Kind
    seq: int
    payload: Mapping[str, Any]
    status: Status = Status.RUNNING
    stream_key: str | None = None
    v: int = ENVELOPE_VERSION

    def __post_init__(self) -> None:
        # Exact-type tests first: what a producer passes (an int, the enum members, a dict)
        # takes no enum call, ABC check or object.__setattr__ (this runs for every block sent).
        if type(self.seq) is not int and not _is_int(self.seq):
            raise EnvelopeError("seq must be an int")
        if not _is_int(self.v) or self.v != ENVELOPE_VERSION:
            raise EnvelopeError(f"v must be {ENVELOPE_VERSION}, the only version written")
        if self.stream_key is not None and not isinstance(self.stream_key, str):
            raise EnvelopeError("stream_key must be a string")
        kind, status = self.kind, self.status
        if type(kind) is not Kind or type(status) is not Status:
            try:
                kind, status = Kind(kind), Status(status)
            except ValueError as exc:
                raise EnvelopeError(str(exc)) from None
            _set_kind(self, kind)
            _set_status(self, status)
        payload = self.payload
        if type(payload) is not dict and not isinstance(payload, Mapping):
            raise EnvelopeError("payload must be a mapping")
        problem = payload_problem(kind, payload)
        if problem:
            raise EnvelopeError(problem)
        _set_payload(self, MappingProxyType(dict(payload)))

    def __hash__(self) -> int:
        # The generated hash would hash the payload, a mappingproxy, which is unhashable: every
        # hash() raised TypeError. Equal envelopes agree on these fields (and (stream, seq)
        # already tells envelopes of a turn apart, the task id does).
        return hash((self.kind, self.seq, self.status, self.stream_key))

    @property
    def tool(self) -> str | None:
        """The tool name for ``tool_call`` / ``tool_output_append``, else None."""
        value = self.payload.get("tool")
        return value if isinstance(value, str) else None

    @property
    def tool_call_id(self) -> str | None:
        """The callee's tool call id when the payload names one."""
        value = self.payload.get("tool_call_id")
        return value if isinstance(value, str) and value else None

    @property
    def content(self) -> str | None:
        """The human-readable content: thinking/progress text, error message or output chunk."""
        name = _CONTENT_FIELD[self.kind]
        return None if name is None else str(self.payload[name])

    @property
    def stream_id(self) -> str:
        """The aggregation key: ``streamKey``, else ``payload.tool_call_id``, else ``""``.

        ``""`` is the single aggregated stream the spec describes for an omitted key.
        """
        return self.stream_key or self.tool_call_id or ""

    def to_wire(self) -> dict[str, Any]:
        """The envelope as the JSON object of the wire format (field names as on the wire)."""
        # encode() calls this for every envelope sent, hence: whole literals; _value_ rather
        # than the enum .value property; and the proxy's copy() (payload is always the
        # MappingProxyType set at construction), a plain dict copy, where dict() would go
        # through the proxy's mapping protocol at several times the cost.
        payload = cast("MappingProxyType[str, Any]", self.payload).copy()
        if self.stream_key is None:
            return {
                "v": self.v,
                "kind": self.kind._value_,
                "seq": self.seq,
                "status": self.status._value_,
                "payload": payload,
            }
        return {
            "v": self.v,
            "kind": self.kind._value_,
            "streamKey": self.stream_key,
            "seq": self.seq,
            "status": self.status._value_,
            "payload": payload,
        }


_set_kind, _set_status, _set_payload = (
    getattr(Envelope, name).__set__ for name in ("kind", "status", "payload")
)
