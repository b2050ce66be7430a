"""What every dialect reader shares: the reader protocol, bounded per-turn state, and builders.

A dialect reader turns the parts of one A2A update from an agent that does not speak the
envelope (Google ADK, Gemini CLI) into synthetic v1 `Envelope` values, so the
consumer, the views and the instrumentor treat them like any other progress. Peers are
untrusted: readers never raise, read at most `MAX_PARTS` parts of an update, track at
most `MAX_CALLS` tool calls per turn and cut every string they keep or emit.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final, Protocol

from a2a_progress.envelope import SOFT_LIMIT_BYTES, Envelope, Kind, Status, truncate_utf8
from a2a_progress.sdk.views import PartView

JsonObject = Mapping[str, Any]
"""A JSON object as the seam gives it (metadata, a DataPart's data): plain Python values."""

MAX_PARTS: Final = 64
"""Parts of one update a reader looks at; the rest (junk from a hostile peer) is ignored."""

MAX_CALLS: Final = 1024
"""Tool calls one reader tracks per turn; calls past it are ignored (no span, no memory)."""

MAX_ID_CHARS: Final = 256
"""Longest call id or tool name kept; longer ones are cut (they key memory and spans)."""

MAX_REASON_BYTES: Final = 1024
"""Longest abort reason (UTF-8 bytes) put in ``payload.reason``."""

MAX_TEXT_BYTES: Final = SOFT_LIMIT_BYTES
"""Longest thought, text or output chunk in one synthetic envelope; the rest is cut."""


class DialectReader(Protocol):
    """One dialect's per-turn translator (one instance per turn; never raises)."""

    @property
    def name(self) -> str:
        """The dialect's name, e.g. ``adk``."""
        ...

    def read(
        self,
        parts: Sequence[PartView],
        metadata: Sequence[JsonObject],
        counter: SeqCounter,
        *,
        artifact: bool,
    ) -> list[Envelope] | None:
        """The new envelopes an update in this dialect means, or None when it is not one.

        An empty list means the update was in this dialect but brought nothing new (a resent
        object): the consumer shows nothing for it rather than its text. ``artifact`` says the
        parts come from an artifact update, whose plain text is the reply, not progress.
        """
        ...


class SeqCounter:
    """The synthetic ``seq`` of one turn, shared by its dialects: strictly increasing."""

    __slots__ = ("_next",)

    def __init__(self) -> None:
        self._next = 1

    def take(self) -> int:
        seq = self._next
        self._next += 1
        return seq


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` UTF-8 bytes at a character boundary."""
    return text if len(text) <= limit // 4 else truncate_utf8(text, limit)


def metadata_value(objects: Sequence[JsonObject], key: str) -> Any:
    """The value under ``key`` in the first object that has it, else None."""
    for obj in objects:
        if key in obj:
            return obj[key]
    return None


def has_prefixed_key(objects: Sequence[JsonObject], prefix: str) -> bool:
    """Whether any of ``objects`` has a key starting with ``prefix``."""
    return any(key.startswith(prefix) for obj in objects for key in obj)


def object_of(value: Any) -> JsonObject | None:
    """``value`` if it is a JSON object, else None."""
    return value if isinstance(value, Mapping) else None


def data_fields(part: PartView) -> JsonObject | None:
    """The object a DataPart carries (its data holding a JSON object), else None."""
    return object_of(part.data)


def text_of(value: Any) -> str | None:
    """``value`` if it is a string, else None."""
    return value if isinstance(value, str) else None


def field(obj: JsonObject, *names: str) -> Any:
    """The value of the first of ``names`` present in ``obj`` (snake_case and camelCase
    spellings); None when none is (or its value is null)."""
    for name in names:
        value = obj.get(name)
        if value is not None:
            return value
    return None


def truthy(value: Any) -> bool:
    """Whether a JSON value is set the way Python tests it (non-empty, non-zero, true)."""
    return bool(value)


def short_text(value: Any, limit: int = MAX_REASON_BYTES) -> str:
    """A compact human string for any JSON value, cut to ``limit`` bytes."""
    if value is None:
        return ""
    if isinstance(value, str):
        return clip(value, limit)
    if isinstance(value, Mapping):
        message = text_of(field(value, "message", "error_message", "errorMessage"))
        if message is not None:
            return clip(message, limit)
    try:
        return clip(json.dumps(value, ensure_ascii=False), limit)
    except (ValueError, TypeError, RecursionError):
        return ""


class CallTable:
    """The tool calls of one turn a reader has opened, by id: bounded, insertion-ordered."""

    __slots__ = ("_calls", "_limit")

    def __init__(self, limit: int = MAX_CALLS) -> None:
        self._calls: dict[str, CallState] = {}
        self._limit = limit

    def get(self, call_id: str) -> CallState | None:
        return self._calls.get(call_id)

    def add(self, call_id: str, tool: str) -> CallState | None:
        """Track a new call; None when the table is full (the call is then ignored)."""
        if len(self._calls) >= self._limit:
            return None
        state = self._calls[call_id] = CallState(call_id, tool)
        return state

    def __len__(self) -> int:
        return len(self._calls)

    def __iter__(self) -> Iterator[CallState]:
        return iter(self._calls.values())


class CallState:
    """What a reader remembers of one call: enough to pair, de-duplicate and diff output."""

    __slots__ = (
        "call_id",
        "ended",
        "long_running",
        "output_digest",
        "output_length",
        "running",
        "tool",
    )

    def __init__(self, call_id: str, tool: str) -> None:
        self.call_id = call_id
        self.tool = tool
        self.long_running = False
        self.running = False
        self.ended = False
        self.output_length = 0
        self.output_digest = b""


def tool_envelope(
    counter: SeqCounter,
    call: CallState,
    status: Status,
    *,
    reason: str | None = None,
    long_running: bool = False,
) -> Envelope:
    """A ``tool_call`` envelope on the call's own stream (``streamKey`` = its id)."""
    payload: dict[str, Any] = {"tool": call.tool, "tool_call_id": call.call_id}
    if reason:
        payload["reason"] = clip(reason, MAX_REASON_BYTES)
    if long_running:
        payload["long_running"] = True
    return Envelope(Kind.TOOL_CALL, counter.take(), payload, status, call.call_id)


def text_envelope(counter: SeqCounter, kind: Kind, text: str) -> Envelope:
    """A ``thinking`` or ``text`` envelope on the turn's aggregated stream."""
    return Envelope(kind, counter.take(), {"text": clip(text, MAX_TEXT_BYTES)})


def output_envelope(counter: SeqCounter, call: CallState, chunk: str) -> Envelope:
    """A ``tool_output_append`` chunk on the call's stream."""
    payload = {"tool": call.tool, "tool_call_id": call.call_id, "chunk": chunk}
    return Envelope(Kind.TOOL_OUTPUT_APPEND, counter.take(), payload, Status.RUNNING, call.call_id)


def fallback_text(envelope: Envelope) -> str:
    """A one-line human text for a synthetic envelope (what an envelope's fallback says)."""
    if envelope.kind is Kind.TOOL_CALL:
        tool = envelope.tool or "tool"
        if envelope.status is Status.RUNNING:
            return f"Running tool {tool}"
        if envelope.status is Status.DONE:
            return f"Tool {tool} done"
        reason = envelope.payload.get("reason")
        return f"Tool {tool} aborted" + (f": {reason}" if isinstance(reason, str) else "")
    return envelope.content or ""
